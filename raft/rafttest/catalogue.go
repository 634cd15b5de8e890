// Package rafttest is the Raft lab's test catalogue, written against the
// lab's API (package raftapi) alone, so that it tests any implementation:
// ours (package raft runs it with raft.Maker) or a student's in the course
// kit (labsim kit raft).
//
// Each test is a Test value: its name, the part of the lab it belongs to
// (3A election, 3B agreement, 3C persistence, 3D snapshots), its points,
// and a body that runs it once on a world for a seed. A test file calls
// the Test's Run from a test function of the same name:
//
//	func TestInitialElection(t *testing.T) { rafttest.InitialElection.Run(t, raft.Maker(cfg)) }
//
// Run runs the body over a few fixed seeds (or the one given by -seed),
// prints a summary line per run, replays the first seed to check that the
// run is a function of its seed, and on failure prints the seed and the
// command that replays it. The Harness the bodies use builds the nodes on
// the cluster harness; white-box tests can use it too.
package rafttest

import (
	"testing"

	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim/simtest"
)

// A Test is one test of the catalogue.
type Test struct {
	Name   string // the name of the test function that runs it
	Part   string // the lab's part: 3A, 3B, 3C or 3D
	Points int
	// Body runs the test once on a world for seed, with nodes made by mk,
	// failing through t, and returns the harness it ran.
	Body func(t simtest.T, seed int64, mk raftapi.Make) *Harness
}

// DefaultSeeds are the seeds every test runs by default.
var DefaultSeeds = []int64{1, 2, 3}

// Run runs the test as t, which must be the test function named
// test.Name, over the default seeds (or -seed), with nodes made by mk (see
// simtest.RunGraded).
func (test Test) Run(t *testing.T, mk raftapi.Make) {
	t.Helper()
	simtest.RunGraded(t, test.Name, test.Part, test.Points, DefaultSeeds, func(t *testing.T, seed int64) simtest.Result {
		return test.Body(t, seed, mk).Result()
	})
}

// The catalogue, by part.
var (
	InitialElection = Test{"TestInitialElection", "3A", 5, initialElection}
	ReElection      = Test{"TestReElection", "3A", 5, reElection}
	ManyElections   = Test{"TestManyElections", "3A", 5, manyElections}

	BasicAgree       = Test{"TestBasicAgree", "3B", 3, basicAgree}
	RPCBytes         = Test{"TestRPCBytes", "3B", 3, rpcBytes}
	FollowerFailure  = Test{"TestFollowerFailure", "3B", 3, followerFailure}
	LeaderFailure    = Test{"TestLeaderFailure", "3B", 3, leaderFailure}
	FailAgree        = Test{"TestFailAgree", "3B", 3, failAgree}
	FailNoAgree      = Test{"TestFailNoAgree", "3B", 3, failNoAgree}
	ConcurrentStarts = Test{"TestConcurrentStarts", "3B", 3, concurrentStarts}
	Rejoin           = Test{"TestRejoin", "3B", 3, rejoin}
	Backup           = Test{"TestBackup", "3B", 3, backup}
	Count            = Test{"TestCount", "3B", 3, count}

	Persist1          = Test{"TestPersist1", "3C", 4, persist1}
	Persist2          = Test{"TestPersist2", "3C", 4, persist2}
	Persist3          = Test{"TestPersist3", "3C", 4, persist3}
	Figure8           = Test{"TestFigure8", "3C", 4, figure8}
	UnreliableAgree   = Test{"TestUnreliableAgree", "3C", 4, unreliableAgree}
	Figure8Unreliable = Test{"TestFigure8Unreliable", "3C", 4, figure8Unreliable}
	ReliableChurn     = Test{"TestReliableChurn", "3C", 4, reliableChurn}
	UnreliableChurn   = Test{"TestUnreliableChurn", "3C", 4, unreliableChurn}

	SnapshotBasic             = Test{"TestSnapshotBasic", "3D", 3, snapshotBasic}
	SnapshotInstall           = Test{"TestSnapshotInstall", "3D", 3, snapshotInstall}
	SnapshotInstallUnreliable = Test{"TestSnapshotInstallUnreliable", "3D", 3, snapshotInstallUnreliable}
	SnapshotInstallCrash      = Test{"TestSnapshotInstallCrash", "3D", 3, snapshotInstallCrash}
	SnapshotInstallUnCrash    = Test{"TestSnapshotInstallUnCrash", "3D", 3, snapshotInstallUnCrash}
	SnapshotAllCrash          = Test{"TestSnapshotAllCrash", "3D", 4, snapshotAllCrash}
	SnapshotInit              = Test{"TestSnapshotInit", "3D", 4, snapshotInit}
)

// Tests returns the whole catalogue, in the order of the lab's parts.
func Tests() []Test {
	return []Test{
		InitialElection, ReElection, ManyElections,
		BasicAgree, RPCBytes, FollowerFailure, LeaderFailure, FailAgree, FailNoAgree, ConcurrentStarts, Rejoin, Backup, Count,
		Persist1, Persist2, Persist3, Figure8, UnreliableAgree, Figure8Unreliable, ReliableChurn, UnreliableChurn,
		SnapshotBasic, SnapshotInstall, SnapshotInstallUnreliable, SnapshotInstallCrash, SnapshotInstallUnCrash, SnapshotAllCrash, SnapshotInit,
	}
}
