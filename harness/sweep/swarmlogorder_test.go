package sweep

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSwarmLogOrderKeepsTheOpsBound draws the configurations of
// swarm-logorder's first seeds and of seeds 70 and 2303 (without running
// them): on every one, the clients, each pausing the drawn think time
// after a transaction for the run's length, issue at most half of
// swarmTxnOps transactions, paper 004's 150 s failover included. Before,
// a failover seed kept the pauses drawn for its drawn length: seed 2303
// (23 clients pausing 167 ms) issued 14 times as many transactions of
// ever longer lists, with a snapshot every tid, and ran for hours; seed
// 70 (16 clients pausing 135 ms) kept its log's leader's slow link so
// full that a restarted node got a quarter of it and could not catch up.
func TestSwarmLogOrderKeepsTheOpsBound(t *testing.T) {
	seeds := []int64{70, 2303}
	for seed := int64(1); seed <= 200; seed++ {
		seeds = append(seeds, seed)
	}
	failovers := 0
	for _, seed := range seeds {
		r, err := runSwarmLogOrder(nil, seed, "", nil)
		require.NoError(t, err, "seed %d", seed)
		drawn := DrawnMap(r.Drawn)
		clients, err := strconv.Atoi(strings.Fields(drawn["clients"] + " ")[0]) // "3 (at most ...)", if bounded
		require.NoError(t, err, "seed %d: clients in %v", seed, r.Drawn)
		think, err := time.ParseDuration(drawn["think"])
		require.NoError(t, err, "seed %d: think in %v", seed, r.Drawn)
		most := float64(clients) * float64(r.Length) / float64(think)
		assert.LessOrEqual(t, most, float64(swarmTxnOps)/2, "seed %d: %d clients pausing %v for %v", seed, clients, think, r.Length)
		if drawn["failover"] == "true" {
			failovers++
		}
	}
	assert.Greater(t, failovers, 2, "failover seeds among the first, beside 70 and 2303")
}

// TestSwarmLogOrderFailoverCatchesUp replays swarm-logorder's seed 70 (5
// nodes, 16 clients, 119 KB/s links losing a tenth of the requests and a
// fifth of the replies, paper 004's failover): every restarted node
// catches up within the failover's 20 s. It failed ("node 3, restarted
// at 1m16.46s, had processed tid 2189 of the 2325 the others had then,
// 20s later") while the failover kept the pauses drawn for the seed's
// drawn 16 s (see TestSwarmLogOrderKeepsTheOpsBound).
func TestSwarmLogOrderFailoverCatchesUp(t *testing.T) {
	sc, err := Lookup("swarm-logorder")
	require.NoError(t, err)
	o := sc.Run(70, t.TempDir(), nil)
	require.True(t, o.OK(), o.Problem)
	drawn := DrawnMap(o.Drawn)
	assert.Equal(t, "true", drawn["failover"])
	assert.Equal(t, "true", drawn["bandwidth bound"])
	assert.Positive(t, o.Ops)
}

// TestSwarmLogOrderKeepsEachNodesSnapshot replays the swarm-logorder
// seeds that panicked restarting a node from the log's leader's
// snapshot, which Raft had sent it: seed 6429 (5 nodes, a snapshot every
// tid, node 1 killed and restarted under partitions on a lossy,
// reordering network), where a lost AppendEntries set the leader's next
// index for the node below what it was known to match, to the trimmed
// log's base; and seed 1440, where a new leader, its match for a node
// still below the base it had trimmed its log to, sent the snapshot
// without asking whether the node's log reached the base (every node's
// does).
func TestSwarmLogOrderKeepsEachNodesSnapshot(t *testing.T) {
	sc, err := Lookup("swarm-logorder")
	require.NoError(t, err)
	for _, seed := range []int64{6429, 1440} {
		o := sc.Run(seed, t.TempDir(), nil)
		require.True(t, o.OK(), "seed %d: %s", seed, o.Problem)
		assert.Positive(t, o.Ops, "seed %d", seed)
	}
}
