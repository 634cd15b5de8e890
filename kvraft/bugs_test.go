package kvraft

import (
	"testing"

	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/simtest"
)

// plantedBugs are the known key/value service mistakes the suite must
// catch.
var plantedBugs = append(rsmBugs(), raftBug("pre-election outlives hearing the leader (breaks leases)"))

// rsmBugs plants each of the service core's planted bugs.
func rsmBugs() []simtest.Bug[Options] {
	var out []simtest.Bug[Options]
	for _, b := range rsm.PlantedBugs() {
		out = append(out, simtest.Bug[Options]{Name: b.Name, Plant: b.Plant})
	}
	return out
}

// raftBug plants Raft's planted bug called name in the service's Raft.
func raftBug(name string) simtest.Bug[Options] {
	b, ok := raft.PlantedBugNamed(name)
	if !ok {
		panic("raft has no planted bug " + name)
	}
	return simtest.Bug[Options]{Name: "raft: " + name, Plant: func(o *Options) { b.Plant(&o.Raft) }}
}

// hunt makes a scenario a case of the bug hunt.
func hunt(name string, sc scenario) simtest.Case[Options] {
	return simtest.Case[Options]{Name: name, Run: func(t simtest.T, seed int64, opts Options) { sc(t, seed, opts) }}
}

// TestPlantedBugsCaught plants each bug in turn and runs these scenarios,
// in this order, over a few seeds until one fails; every bug must be
// caught. With -v it prints which test and seed caught each one.
func TestPlantedBugsCaught(t *testing.T) {
	simtest.HuntBugs(t, DefaultOptions, plantedBugs, []simtest.Case[Options]{
		hunt("TestUnreliable", generic(5, 5, true, false, false, -1, false)),
		hunt("TestManyPartitionsManyClients", generic(5, 5, false, false, true, -1, false)),
		hunt("TestSnapshotKeepsDuplicateTable", snapshotKeepsDuplicateTable),
		hunt("TestLeaseReadsWithinDriftBound", leaseReadsWithinDriftBound),
		hunt("TestLeaseReadsPreVoteRepliesDelayed", leaseReadsPreVoteRepliesDelayed),
		hunt("TestPersistPartitionUnreliableLinearizable", generic(15, 7, true, true, true, -1, true)),
	}, 3)
}
