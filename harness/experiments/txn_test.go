package experiments

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn"
)

// latencyOf runs txn-latency's kind named name on panel for a tenth of a
// second of clients clients, and summarizes its latencies (ms).
func latencyOf(t *testing.T, panel, name string, clients int) plots.Stats {
	kinds := txnKinds()
	i := slices.IndexFunc(kinds, func(k txnKind) bool { return k.panel[:3] == panel && k.name == name })
	require.GreaterOrEqual(t, i, 0, "%s %s", panel, name)
	cfg := shardtxn.DefaultConfig()
	if kinds[i].conf != nil {
		kinds[i].conf(&cfg)
	}
	e, err := newTxnEnv(1, 2, true, cfg)
	require.NoError(t, err)
	e.relayed = kinds[i].relayed
	l := e.start(clients, kinds[i].op(e))
	e.w.Run(time.Second / 10)
	l.stopped = true
	return plots.Summarize(millis(l.took))
}

// TestPaperGetSkipsTheLog checks what txn-latency's panel (a) shows: the
// paper's Get, relayed and served from the leader's state, takes well
// under its Set, which takes a Raft round besides; ours, through the log,
// costs what a Set does.
func TestPaperGetSkipsTheLog(t *testing.T) {
	t.Parallel()
	get, set := latencyOf(t, "(a)", getPaper, 1), latencyOf(t, "(a)", setPaper, 1)
	logged, ours := latencyOf(t, "(a)", getLogged, 1), latencyOf(t, "(a)", setOurs, 1)
	assert.Less(t, get.Mean, 0.75*set.Mean, "the paper's Get skips the Raft round its Set takes")
	assert.InDelta(t, ours.Mean, logged.Mean, 0.05*ours.Mean, "our Get costs a Set's round")
	assert.Greater(t, set.Mean, ours.Mean, "relaying through the coordinator costs a hop")
}

// TestFailoverKillsEveryLeader checks txn-failover's placement: on the
// pinned seed and another, in both designs, the host killed led the
// coordinators and both shards, as in the paper, and the service recovered
// within a second; and that docs/figures holds what the pinned seed
// computes.
func TestFailoverKillsEveryLeader(t *testing.T) {
	t.Parallel()
	for seed := int64(1); seed <= 2; seed++ {
		r, err := runTxnFailover(Params{Seed: seed})
		require.NoError(t, err, "seed %d", seed)
		if seed == 1 {
			requireCommitted(t, "txn-failover", r)
		}
		require.Len(t, r.Notes, len(failoverDesigns()))
		for i, d := range failoverDesigns() {
			assert.Contains(t, r.Notes[i], d.name+": killed h0 (the leader of the coordinators and both shards)", "seed %d", seed)
			// The longest run of empty bins from the design's rows.
			gap := func(col int) time.Duration {
				var at, longest time.Duration
				for _, row := range r.Table.Rows {
					if row[0] != d.key {
						continue
					}
					if row[col] != "0" {
						at = 0
						continue
					}
					at += failoverBin
					longest = max(longest, at)
				}
				return longest
			}
			assert.Less(t, gap(2), time.Second, "seed %d, %s: Gets stall less than a second", seed, d.name)
			assert.Less(t, gap(3), time.Second, "seed %d, %s: Sets stall less than a second", seed, d.name)
		}
	}
}

// TestKVReplicationCommitted checks kv-replication's committed CSV,
// captions and notes against what it computes on its pinned seed, and
// that the report's KV Raft, on 10 ms heartbeats, passes the lab's speed
// test, which the lab's 100 ms heartbeats fail.
func TestKVReplicationCommitted(t *testing.T) {
	t.Parallel()
	r, err := runKVReplication(Params{Seed: 1})
	require.NoError(t, err)
	requireCommitted(t, "kv-replication", r)
	require.Len(t, r.Figures, 2)
	assert.Contains(t, r.Figures[1].Caption, kvHeartbeat.name+" passes")
	assert.Contains(t, r.Figures[1].Caption, kvLabHeartbeat.name+" fails")
}
