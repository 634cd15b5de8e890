package raft_test

// The lab's catalogue (package rafttest), run through the lab's API alone
// on the nodes lab makes (lab_test.go). The course kit hands this file out
// as it is.

import (
	"testing"

	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/simtest"
)

// 3A: leader election

func TestInitialElection(t *testing.T) { rafttest.InitialElection.Run(t, lab) }
func TestReElection(t *testing.T)      { rafttest.ReElection.Run(t, lab) }
func TestManyElections(t *testing.T)   { rafttest.ManyElections.Run(t, lab) }

// 3B: log agreement

func TestBasicAgree(t *testing.T)       { rafttest.BasicAgree.Run(t, lab) }
func TestRPCBytes(t *testing.T)         { rafttest.RPCBytes.Run(t, lab) }
func TestFollowerFailure(t *testing.T)  { rafttest.FollowerFailure.Run(t, lab) }
func TestLeaderFailure(t *testing.T)    { rafttest.LeaderFailure.Run(t, lab) }
func TestFailAgree(t *testing.T)        { rafttest.FailAgree.Run(t, lab) }
func TestFailNoAgree(t *testing.T)      { rafttest.FailNoAgree.Run(t, lab) }
func TestConcurrentStarts(t *testing.T) { rafttest.ConcurrentStarts.Run(t, lab) }
func TestRejoin(t *testing.T)           { rafttest.Rejoin.Run(t, lab) }
func TestBackup(t *testing.T)           { rafttest.Backup.Run(t, lab) }
func TestCount(t *testing.T)            { rafttest.Count.Run(t, lab) }

// 3C: persistence

func TestPersist1(t *testing.T)          { rafttest.Persist1.Run(t, lab) }
func TestPersist2(t *testing.T)          { rafttest.Persist2.Run(t, lab) }
func TestPersist3(t *testing.T)          { rafttest.Persist3.Run(t, lab) }
func TestFigure8(t *testing.T)           { rafttest.Figure8.Run(t, lab) }
func TestUnreliableAgree(t *testing.T)   { rafttest.UnreliableAgree.Run(t, lab) }
func TestFigure8Unreliable(t *testing.T) { rafttest.Figure8Unreliable.Run(t, lab) }
func TestReliableChurn(t *testing.T)     { rafttest.ReliableChurn.Run(t, lab) }
func TestUnreliableChurn(t *testing.T)   { rafttest.UnreliableChurn.Run(t, lab) }

// 3D: log compaction

func TestSnapshotBasic(t *testing.T)             { rafttest.SnapshotBasic.Run(t, lab) }
func TestSnapshotInstall(t *testing.T)           { rafttest.SnapshotInstall.Run(t, lab) }
func TestSnapshotInstallUnreliable(t *testing.T) { rafttest.SnapshotInstallUnreliable.Run(t, lab) }
func TestSnapshotInstallCrash(t *testing.T)      { rafttest.SnapshotInstallCrash.Run(t, lab) }
func TestSnapshotInstallUnCrash(t *testing.T)    { rafttest.SnapshotInstallUnCrash.Run(t, lab) }
func TestSnapshotAllCrash(t *testing.T)          { rafttest.SnapshotAllCrash.Run(t, lab) }
func TestSnapshotInit(t *testing.T)              { rafttest.SnapshotInit.Run(t, lab) }

// TestCatalogueComplete checks that this file runs every test of the
// catalogue.
func TestCatalogueComplete(t *testing.T) {
	var names []string
	for _, test := range rafttest.Tests() {
		names = append(names, test.Name)
	}
	simtest.CheckDeclared(t, "catalogue_test.go", names)
}
