package kvraft

import (
	"testing"

	"github.com/replab/replab/raft"
	"github.com/replab/replab/simtest"
)

// plantedBugs are the known key/value service mistakes the suite must
// catch.
var plantedBugs = []simtest.Bug[Options]{
	{Name: "no de-duplication: a retried write applies twice", Plant: func(o *Options) { o.bugs.noDedup = true }},
	{Name: "writes answered before they commit", Plant: func(o *Options) { o.bugs.replyBeforeCommit = true }},
	{Name: "reads served from any server's local state", Plant: func(o *Options) { o.bugs.localReads = true }},
	{Name: "de-duplication table left out of snapshots", Plant: func(o *Options) { o.bugs.snapshotNoSessions = true }},
	{Name: "lease reads without a margin for clock drift", Plant: func(o *Options) { o.bugs.leaseNoMargin = true }},
	raftBug("pre-election outlives hearing the leader (breaks leases)"),
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
