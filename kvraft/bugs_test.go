package kvraft

import (
	"testing"

	"github.com/replab/replab/simtest"
)

// plantedBugs are the known key/value service mistakes the suite must
// catch.
var plantedBugs = []struct {
	name  string
	plant func(*bugs)
}{
	{"no de-duplication: a retried write applies twice", func(b *bugs) { b.noDedup = true }},
	{"writes answered before they commit", func(b *bugs) { b.replyBeforeCommit = true }},
	{"reads served from any server's local state", func(b *bugs) { b.localReads = true }},
	{"de-duplication table left out of snapshots", func(b *bugs) { b.snapshotNoSessions = true }},
	{"lease reads without a margin for clock drift", func(b *bugs) { b.leaseNoMargin = true }},
}

// huntScenarios are the scenarios a planted bug is hunted with, in the
// order they are tried.
var huntScenarios = []struct {
	name string
	sc   scenario
}{
	{"TestUnreliable", generic(5, 5, true, false, false, -1, false)},
	{"TestManyPartitionsManyClients", generic(5, 5, false, false, true, -1, false)},
	{"TestSnapshotKeepsDuplicateTable", snapshotKeepsDuplicateTable},
	{"TestSnapshotUnreliableRecover", generic(5, 5, true, true, false, 1000, false)},
	{"TestPersistPartitionUnreliableLinearizable", generic(15, 7, true, true, true, -1, true)},
	{"TestLeaseReadsWithinDriftBound", func(t simtest.T, seed int64, opts Options) *config {
		cfg := leaseDrift(t, seed, opts, opts.Raft.LeaseDrift)
		cfg.checkLinearizable()
		return cfg
	}},
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
			opts := DefaultOptions()
			if bug >= 0 {
				plantedBugs[bug].plant(&opts.bugs)
			}
			h.sc(t, seed, opts)
		}}
	}
	simtest.HuntBugs(t, names, scs, 3)
}
