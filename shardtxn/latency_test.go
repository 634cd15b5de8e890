package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floorRTTs is the protocol's floor for a transaction across shards, in
// network round trips, client and Raft included: the client's request
// reaches the coordinator leader (½), the table entry is replicated (1:
// AppendEntries to the followers and their answers), the prepares reach
// the cohorts' leaders (½), each shard's log replicates its prepare (1),
// the votes return (½), the decision is replicated (1), and the client
// hears it (½). Commits to the cohorts follow off the critical path.
const floorRTTs = 5.0

// TestCrossShardLatency measures, on a quiet network, the latency of
// transactions that write one key on each of three shards, and checks that
// their mean is within half a round trip of the protocol's floor.
func TestCrossShardLatency(t *testing.T) {
	t.Parallel()
	eachVariant(t, crossShardLatency)
}

func crossShardLatency(t *testing.T, cfg shardtxn.Config) {
	d := deploy(t, 1, standard(cfg))
	p := d.c.Net().Params()
	rtt := 2 * (p.Latency + p.Jitter/2)
	ck := txntest.Clerk(d.c, "client")
	keys := []string{}
	for i := 0; len(keys) < 3; i++ {
		k := txntest.ListKey(i)
		if shardtxn.ShardOf(k, 3) == len(keys) {
			keys = append(keys, k)
		}
	}
	require.True(t, d.run(t, ck, shardtxn.Get(keys[0]), shardtxn.Get(keys[1]), shardtxn.Get(keys[2])).Committed, "a first transaction finds the leaders")
	const n = 20
	var total time.Duration
	for i := range n {
		start := d.w.Now()
		v := txntest.ListKey(i)
		require.True(t, d.run(t, ck, shardtxn.Set(keys[0], v), shardtxn.Set(keys[1], v), shardtxn.Set(keys[2], v)).Committed)
		total += d.w.Now() - start
		require.True(t, d.w.RunUntil(d.drained, time.Second))
	}
	leader, _, ok := d.coordLeader()
	require.True(t, ok)
	decisions, entries := leader.Batching()
	assert.Equal(t, n+1, decisions, "one decision a transaction, the first included")
	assert.Equal(t, n+1, entries, "one at a time, each decision has an entry of its own")
	mean := total / n
	t.Logf("mean latency %v = %.2f round trips of %v; floor %.1f", mean, float64(mean)/float64(rtt), rtt, floorRTTs)
	assert.LessOrEqual(t, float64(mean)/float64(rtt), floorRTTs+0.5, "within half a round trip of the floor")
}

// TestSingleShardLatency checks that a transaction on one shard goes
// straight to it and commits in one step of its log: the client's request
// reaches the shard leader (½), its log replicates it (1), the client hears
// the result (½): two round trips, within half of one.
func TestSingleShardLatency(t *testing.T) {
	t.Parallel()
	eachVariant(t, singleShardLatency)
}

func singleShardLatency(t *testing.T, cfg shardtxn.Config) {
	d := deploy(t, 1, standard(cfg))
	p := d.c.Net().Params()
	rtt := 2 * (p.Latency + p.Jitter/2)
	ck := txntest.Clerk(d.c, "client")
	require.True(t, d.run(t, ck, shardtxn.Get("a")).Committed, "a first transaction finds the leader")
	const n = 20
	var total time.Duration
	for i := range n {
		start := d.w.Now()
		out := d.run(t, ck, shardtxn.Append("a", txntest.ListKey(i)), shardtxn.Read("a"))
		require.True(t, out.Committed)
		require.Len(t, out.Results[1].List, i+1, "the read sees the append before it")
		total += d.w.Now() - start
	}
	mean := total / n
	t.Logf("mean latency %v = %.2f round trips of %v", mean, float64(mean)/float64(rtt), rtt)
	assert.LessOrEqual(t, float64(mean)/float64(rtt), 2.5, "within half a round trip of the floor")
}

// TestDecisionsBatched starts twenty transactions across shards at once:
// the coordinator leader puts their decisions in fewer log entries than
// there are decisions.
func TestDecisionsBatched(t *testing.T) {
	t.Parallel()
	eachVariant(t, decisionsBatched)
}

func decisionsBatched(t *testing.T, cfg shardtxn.Config) {
	d := deploy(t, 1, standard(cfg))
	warm := txntest.Clerk(d.c, "warm")
	require.True(t, d.run(t, warm, shardtxn.Get("a"), shardtxn.Get("b1")).Committed)
	const n = 20
	ended := 0
	for i := range n {
		ck := txntest.Clerk(d.c, txntest.ListKey(i))
		a, b := txntest.ListKey(2*i), txntest.ListKey(2*i+1)
		require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "1"), shardtxn.Set(b, "1")}, func(o shardtxn.Outcome) {
			if o.Committed {
				ended++
			}
		}))
	}
	require.True(t, d.w.RunUntil(func() bool { return ended == n }, 5*time.Second), "all commit")
	leader, _, ok := d.coordLeader()
	require.True(t, ok)
	decisions, entries := leader.Batching()
	t.Logf("%d decisions in %d entries", decisions, entries)
	assert.GreaterOrEqual(t, decisions, n, "every cross-shard transaction decided")
	assert.Less(t, entries, decisions/2, "decisions share entries")
}
