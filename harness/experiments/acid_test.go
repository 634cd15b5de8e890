package experiments

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/sim"
)

// TestCoordinatorCrashFailsNoTransaction runs txn-acid-crash's coordinator
// leader crash cut down to 20 transactions: the kill stalls the one in
// flight (a clerk timeout and an election) but fails none, and the
// directory, not a failure, brings the client to the new leader.
func TestCoordinatorCrashFailsNoTransaction(t *testing.T) {
	sc := acidCrashes()[len(acidCrashes())-1]
	require.Equal(t, "3 TMs, TM-leader crash", sc.name)
	r, err := runCrashScenario(1, sc, 20)
	require.NoError(t, err)
	assert.Len(t, r.load.took, 20)
	assert.Zero(t, r.failed, "a client retries under its Txid: the crash fails nothing")
	require.Len(t, r.names, 1)
	assert.True(t, strings.HasPrefix(r.names[0], "coord"), "the TM leader's host was killed, not %s", r.names[0])
	assert.Greater(t, r.latencies.Max, 100.0, "the transaction in flight waited for a new leader")
	assert.Less(t, r.latencies.P50, 20.0, "the others did not")
}

// TestCompareVerdict names, at each end of the keyspace, the variant that
// commits the most and the one that answers fastest.
func TestCompareVerdict(t *testing.T) {
	variants := services.TxnVariants()[:2]
	keys := []int{1000, 10}
	rate := func(perSecond, mean float64, failed int) acidRate {
		return acidRate{perSecond: perSecond, committed: 100 - failed, failed: failed, latency: plots.Stats{Mean: mean}}
	}
	rates := []acidRate{rate(500, 5, 0), rate(50, 30, 60), rate(400, 6, 0), rate(100, 9, 80)}
	v := compareVerdict(variants, keys, rates)
	assert.Contains(t, v, "With 1000 keys, lock-waits/presumed-abort commits the most (500 a second, 0.0 % failed) and lock-waits/presumed-abort answers fastest (mean 5.0 ms")
	assert.Contains(t, v, "With 10 keys, write-intents/presumed-abort commits the most (100 a second, 80.0 % failed) and write-intents/presumed-abort answers fastest (mean 9.0 ms")
	assert.Equal(t, 0.0, acidRate{}.failedPct(), "nothing ended, nothing failed")
}

// TestRandomKeysAreDistinct draws a transaction's keys without repeats,
// even from a keyspace barely larger than the transaction.
func TestRandomKeysAreDistinct(t *testing.T) {
	e := &txnEnv{w: sim.NewWorld(1)}
	for range 50 {
		ks := e.randomKeys(9, 10)
		assert.Len(t, ks, 9)
		seen := map[string]bool{}
		for _, k := range ks {
			assert.False(t, seen[k], "%s twice in %v", k, ks)
			seen[k] = true
		}
	}
	assert.Equal(t, time.Duration(0), e.w.Now(), "drawing keys takes no time")
}

// TestAcidThroughputCountsFailures runs txn-acid-table1's load cut down (4
// clients, 50 ms, 3 shards): reads of distinct keys all commit; writes of
// 10 keys of 20 meet each other's pending intents, and under paper 003's
// design such a prepare aborts at once, so some fail, and are counted.
func TestAcidThroughputCountsFailures(t *testing.T) {
	e, err := newAcidEnv(1, 3, true, 3, acidDesign())
	require.NoError(t, err)
	reads := acidThroughputOf(e, 4, randomTxn(e, 10, acidKeys, false), 50*time.Millisecond)
	assert.Positive(t, reads.committed)
	assert.Zero(t, reads.failed, "reads share their locks")
	assert.InDelta(t, float64(reads.committed)*20, reads.perSecond, 0.001, "committed per second of 50 ms")
	writes := acidThroughputOf(e, 4, randomTxn(e, 10, 20, true), 50*time.Millisecond)
	assert.Positive(t, writes.committed)
	assert.Positive(t, writes.failed, "contending writes abort on pending intents")
}
