package kvraft_test

import (
	"testing"

	"github.com/replab/replab/sim/plant"

	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim/simtest"
)

// plantedBugs are the known key/value service mistakes the suite must
// catch.
var plantedBugs = append(rsm.PlantedBugs(), raftBug("pre-election outlives hearing the leader (breaks leases)"))

// raftBug plants Raft's planted bug called name in the service's Raft.
func raftBug(name string) plant.Bug[kvraft.Options] {
	b, ok := plant.Named(raft.PlantedBugs(), name)
	if !ok {
		panic("raft has no planted bug " + name)
	}
	return plant.Bug[kvraft.Options]{Name: "raft: " + name, Plant: func(o *kvraft.Options) { b.Plant(&o.Raft) }}
}

// hunt makes a scenario a case of the bug hunt.
func hunt(name string, sc scenario) simtest.Case[kvraft.Options] {
	return simtest.Case[kvraft.Options]{Name: name, Run: func(t simtest.T, seed int64, opts kvraft.Options) { sc(t, seed, opts) }}
}

// TestPlantedBugsCaught plants each bug in turn and runs these scenarios,
// in this order, over a few seeds until one fails; every bug must be
// caught. With -v it prints which test and seed caught each one. The
// scenarios go cheapest first: the duplicate-table test (a few
// milliseconds) catches the de-duplication bugs, the drift-bound test the
// read and commit bugs, the pre-vote test Raft's; TestUnreliable, last,
// catches the first and third again, should a change move the others'
// seeds. Every scenario also runs as a test of its own.
func TestPlantedBugsCaught(t *testing.T) {
	t.Parallel()
	simtest.HuntBugs(t, kvraft.DefaultOptions, plantedBugs, []simtest.Case[kvraft.Options]{
		hunt("TestSnapshotKeepsDuplicateTable", snapshotKeepsDuplicateTable),
		hunt("TestLeaseReadsWithinDriftBound", leaseReadsWithinDriftBound),
		hunt("TestLeaseReadsPreVoteRepliesDelayed", leaseReadsPreVoteRepliesDelayed),
		hunt("TestUnreliable", catalogue(kvtest.Unreliable)),
	}, 3)
}
