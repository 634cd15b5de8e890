package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/simtest"
)

// hunt makes a white-box scenario a case of the bug hunt.
func hunt(name string, sc scenario) simtest.Case[Config] {
	return simtest.Case[Config]{Name: name, Run: func(t simtest.T, seed int64, rc Config) { sc(t, seed, rc) }}
}

// huntCatalogue makes a test of the catalogue a case of the bug hunt.
func huntCatalogue(test rafttest.Test) simtest.Case[Config] {
	return simtest.Case[Config]{Name: test.Name, Run: func(t simtest.T, seed int64, rc Config) { test.Body(t, seed, Maker(rc)) }}
}

// TestPlantedBugsCaught plants each bug in turn and runs these scenarios,
// in this order, over a few seeds until one fails; every bug must be
// caught. With -v it prints which test and seed caught each one. The
// scenarios that catch a bug come first, cheapest first; the others stay
// as a net, should a change move the bugs' seeds. Figure8 and
// UnreliableChurn, which caught none that an earlier one did not and cost
// the most, run as tests of their own only.
func TestPlantedBugsCaught(t *testing.T) {
	t.Parallel()
	simtest.HuntBugs(t, LabConfig, PlantedBugs(), []simtest.Case[Config]{
		hunt("TestFigure8Scripted", figure8Scripted),
		hunt("TestVoteSurvivesCrash", voteSurvivesCrash),
		hunt("TestPreVoteEndsWhenLeaderHeard", preVoteEndsWhenLeaderHeard),
		huntCatalogue(rafttest.Persist2),
		huntCatalogue(rafttest.Figure8Unreliable),
		huntCatalogue(rafttest.Backup),
		huntCatalogue(rafttest.Rejoin),
		huntCatalogue(rafttest.ReElection),
		huntCatalogue(rafttest.SnapshotInstallUnCrash),
		hunt("TestPartitionMajority/n=5", partitionMajority(5)),
	}, 5)
}

// TestPlantedBugsHaveDistinctNames checks that a name picks one bug out
// (plant.Named), as sweeps and a course's tests look them up.
func TestPlantedBugsHaveDistinctNames(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range PlantedBugs() {
		assert.False(t, seen[b.Name], "two bugs called %q", b.Name)
		seen[b.Name] = true
	}
}
