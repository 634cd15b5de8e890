package raft

import (
	"testing"

	"github.com/replab/replab/simtest"
)

// plantedBugs are the known Raft mistakes the suite must catch.
var plantedBugs = []struct {
	name  string
	plant func(*bugs)
}{
	{"vote granted without the log-up-to-date check", func(b *bugs) { b.voteWithoutLogCheck = true }},
	{"commit by counting replicas of an old-term entry", func(b *bugs) { b.commitOldTerm = true }},
	{"votedFor not persisted", func(b *bugs) { b.forgetVote = true }},
	{"conflicting suffix not truncated", func(b *bugs) { b.keepConflicts = true }},
	{"log truncated by a stale AppendEntries", func(b *bugs) { b.truncateStale = true }},
	{"leader does not step down on a higher term", func(b *bugs) { b.noStepDown = true }},
	{"entries applied before they commit", func(b *bugs) { b.applyUncommitted = true }},
}

// huntScenarios are the scenarios a planted bug is hunted with, in the
// order they are tried.
var huntScenarios = []struct {
	name string
	sc   scenario
}{
	{"TestFigure8Scripted", figure8Scripted},
	{"TestVoteSurvivesCrash", voteSurvivesCrash},
	{"TestFigure8", figure8},
	{"TestFigure8Unreliable", figure8Unreliable},
	{"TestUnreliableChurn", unreliableChurn},
	{"TestReliableChurn", reliableChurn},
	{"TestBackup", backup},
	{"TestPersist2", persist2},
	{"TestRejoin", rejoin},
	{"TestReElection", reElection},
	{"TestSnapshotInstallUnCrash", snapshotInstallUnCrash},
	{"TestPartitionMajority/n=5", partitionMajority(5)},
}

// TestPlantedBugsCaught plants each bug in turn and runs the scenarios over
// a few seeds until one fails; every bug must be caught. With -v it prints
// which test and seed caught each one.
func TestPlantedBugsCaught(t *testing.T) {
	names := make([]string, len(plantedBugs))
	for i, b := range plantedBugs {
		names[i] = b.name
	}
	scs := make([]simtest.Scenario, len(huntScenarios))
	for i, h := range huntScenarios {
		scs[i] = simtest.Scenario{Name: h.name, Run: func(t simtest.T, seed int64, bug int) {
			rc := LabConfig()
			if bug >= 0 {
				plantedBugs[bug].plant(&rc.bugs)
			}
			h.sc(t, seed, rc)
		}}
	}
	simtest.HuntBugs(t, names, scs, 5)
}
