package raft

import (
	"testing"

	"github.com/replab/replab/simtest"
)

// plantedBugs are the known Raft mistakes the suite must catch.
var plantedBugs = []simtest.Bug[Config]{
	{Name: "vote granted without the log-up-to-date check", Plant: func(c *Config) { c.bugs.voteWithoutLogCheck = true }},
	{Name: "commit by counting replicas of an old-term entry", Plant: func(c *Config) { c.bugs.commitOldTerm = true }},
	{Name: "votedFor not persisted", Plant: func(c *Config) { c.bugs.forgetVote = true }},
	{Name: "conflicting suffix not truncated", Plant: func(c *Config) { c.bugs.keepConflicts = true }},
	{Name: "log truncated by a stale AppendEntries", Plant: func(c *Config) { c.bugs.truncateStale = true }},
	{Name: "leader does not step down on a higher term", Plant: func(c *Config) { c.bugs.noStepDown = true }},
	{Name: "entries applied before they commit", Plant: func(c *Config) { c.bugs.applyUncommitted = true }},
}

// hunt makes a scenario a case of the bug hunt.
func hunt(name string, sc scenario) simtest.Case[Config] {
	return simtest.Case[Config]{Name: name, Run: func(t simtest.T, seed int64, rc Config) { sc(t, seed, rc) }}
}

// TestPlantedBugsCaught plants each bug in turn and runs these scenarios,
// in this order, over a few seeds until one fails; every bug must be
// caught. With -v it prints which test and seed caught each one.
func TestPlantedBugsCaught(t *testing.T) {
	simtest.HuntBugs(t, LabConfig, plantedBugs, []simtest.Case[Config]{
		hunt("TestFigure8Scripted", figure8Scripted),
		hunt("TestVoteSurvivesCrash", voteSurvivesCrash),
		hunt("TestFigure8", figure8),
		hunt("TestFigure8Unreliable", figure8Unreliable),
		hunt("TestUnreliableChurn", unreliableChurn),
		hunt("TestBackup", backup),
		hunt("TestPersist2", persist2),
		hunt("TestRejoin", rejoin),
		hunt("TestReElection", reElection),
		hunt("TestSnapshotInstallUnCrash", snapshotInstallUnCrash),
		hunt("TestPartitionMajority/n=5", partitionMajority(5)),
	}, 5)
}
