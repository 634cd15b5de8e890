package experiments

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
)

// TestCoordinatorCrashClients runs txn-acid-crash's coordinator leader
// crash cut down to 20 transactions with each client. Ours: the kill
// stalls the one in flight (a clerk timeout and an election) but fails
// none, and the directory, not a failure, brings the client to the new
// leader. Paper 003's: the transaction in flight and those sent to the
// dead leader before a new one is known fail, none before the kill nor
// after the first commit that follows it, and the caption says how many.
func TestCoordinatorCrashClients(t *testing.T) {
	scenarios := acidCrashes()
	sc := scenarios[slicesIndexName(scenarios, "3 TMs, TM-leader crash")]
	ours, err := runCrashScenario(1, sc, 20, false)
	require.NoError(t, err)
	assert.Len(t, ours.load.took, 20)
	assert.Zero(t, ours.failed, "a client retries under its Txid: the crash fails nothing")
	require.Len(t, ours.names, 1)
	assert.True(t, strings.HasPrefix(ours.names[0], "coord"), "the TM leader's host was killed, not %s", ours.names[0])
	assert.Greater(t, ours.latencies.Max, 100.0, "the transaction in flight waited for a new leader")
	assert.Less(t, ours.latencies.P50, 20.0, "the others did not")

	paper, err := runCrashScenario(1, sc, 20, true)
	require.NoError(t, err)
	assert.Len(t, paper.load.took, 20)
	assert.Greater(t, paper.failed, 1, "the one in flight and the next, sent to the dead leader, fail")
	for k, ok := range paper.load.committed {
		if !ok {
			assert.Greater(t, paper.load.at[k], paper.killedAt, "transaction %d failed before the kill", k)
			assert.LessOrEqual(t, paper.load.at[k], paper.killedAt+paper.stalled, "transaction %d failed after one had committed again", k)
		}
	}
	assert.Less(t, paper.latencies.Max, ours.latencies.Max, "a try fails fast; a retry waits for the new leader")

	runs := make([]*acidCrashRun, 2*len(scenarios))
	for i := range runs {
		runs[i] = paper
	}
	runs[len(scenarios)+slicesIndexName(scenarios, sc.name)] = ours
	caption := crashCaption(acidClientModes()[0], scenarios, runs[:len(scenarios)], runs, 20)
	assert.Contains(t, caption, fmt.Sprintf("%d of 20, %.1f %%, where our client lost none (its slowest took %.0f ms)", paper.failed, paper.failedPct(), ours.latencies.Max))
	assert.Contains(t, caption, fmt.Sprintf("in the %.0f ms until one commits again", float64(paper.stalled)/float64(time.Millisecond)))
}

// TestCompareVerdict names, at each end of the keyspace, the variant that
// commits the most and the one that answers fastest.
func TestCompareVerdict(t *testing.T) {
	variants := txntest.Variants()[:2]
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

// TestAcidReadsCutDown runs txn-acid-reads' four runs cut down to 20
// transactions: every one commits, a read costs what a write does within
// a millisecond (they take the same steps), and the caption gives the
// paper's ratio and ours as the data make them.
func TestAcidReadsCutDown(t *testing.T) {
	var stats []plots.Stats
	for _, paper := range []bool{true, false} {
		for _, write := range []bool{false, true} {
			took, err := runSequential(1, 20, paper, write)
			require.NoError(t, err)
			require.Len(t, took, 20)
			stats = append(stats, plots.Summarize(millis(took)))
		}
	}
	assert.InDelta(t, stats[1].Mean, stats[0].Mean, 1, "the paper's client: reads and writes take the same steps")
	assert.InDelta(t, stats[3].Mean, stats[2].Mean, 1, "ours too")
	caption := acidReadsCaption(stats)
	assert.Contains(t, caption, "reads 88 % of writes at the middle of each range", "17.5 of 20 ms")
	assert.Contains(t, caption, fmt.Sprintf("reads take %.2f ms (mean; p5-p95 %.2f-%.2f)", stats[0].Mean, stats[0].P5, stats[0].P95))
	assert.Contains(t, caption, fmt.Sprintf("writes %.2f ms (%.2f-%.2f), %.0f %%.", stats[3].Mean, stats[3].P5, stats[3].P95, 100*stats[2].Mean/stats[3].Mean))
}

// TestAcidDiskCostsEachRound runs txn-acid-shards' writes cut down (4
// clients, 50 ms, 3 shards) with free disks, with a 1 ms disk write and
// with a log per shard: with a disk each of a transaction's log rounds
// (the TM's initiation record, the prepares, the decision) waits for a
// write, so a transaction takes at least 3 ms more, and the busiest disk's
// share of the time is counted; with free disks it is zero. With a log per
// shard, the groups on a host no longer share a write: the busiest disk
// writes for longer to commit fewer transactions.
func TestAcidDiskCostsEachRound(t *testing.T) {
	var rates []acidRate
	for _, d := range []acidDisk{{}, {latency: acidDiskLatency}, {latency: acidDiskLatency, logs: true}} {
		e, err := newAcidEnv(1, 3, true, 3, acidDesign())
		require.NoError(t, err)
		require.NoError(t, d.set(e))
		rates = append(rates, acidThroughputOf(e, 4, randomTxn(e, 10, acidKeys, true), 50*time.Millisecond))
	}
	free, disk, logs := rates[0], rates[1], rates[2]
	assert.Positive(t, disk.committed)
	assert.Zero(t, free.diskBusy)
	assert.Greater(t, disk.diskBusy, 0.1)
	assert.LessOrEqual(t, disk.diskBusy, 1.0+1e-9, "a disk is never busier than all the time")
	assert.Greater(t, disk.latency.Mean, free.latency.Mean+3, "three log rounds, each at least a write")
	assert.Greater(t, logs.diskBusy/float64(logs.committed), disk.diskBusy/float64(disk.committed), "a log per shard: more disk time per transaction")
	t.Logf("mean %.1f ms with free disks, %.1f ms with a %v write, %.1f ms with a log per shard; busiest disk %.0f and %.0f %% busy", free.latency.Mean, disk.latency.Mean, acidDiskLatency, logs.latency.Mean, 100*disk.diskBusy, 100*logs.diskBusy)
}

// TestAcidShardsCaptionNamesTheCostliestShards checks that txn-acid-shards'
// caption says where the logs cost the most and rules both disks out
// unless a log per shard costs the most at 7 shards.
func TestAcidShardsCaptionNamesTheCostliestShards(t *testing.T) {
	busy := [][]float64{{0, 0, 0}, {0.9, 0.9, 0.9}, {0.9, 0.95, 1}}
	c := acidShardsCaption(10, time.Second/2, [][]float64{{4000, 3000, 2600}, {1800, 1700, 1700}, {1600, 1400, 1100}}, busy)
	assert.Contains(t, c, "one log a host kept 45, 57 and 65 %", "1800/4000, 1700/3000, 1700/2600")
	assert.Contains(t, c, "a log per shard 40, 47 and 42 %: the logs cost the most at 3 shards with one log a host and at 3 with a log per shard.")
	assert.Contains(t, c, "both were measured and ruled out")
	c = acidShardsCaption(10, time.Second/2, [][]float64{{4000, 3000, 2600}, {1800, 1700, 1700}, {2000, 1500, 1000}}, busy)
	assert.Contains(t, c, "the logs cost the most at 3 shards with one log a host and at 7 with a log per shard. A log per shard costs the most at 7 shards, as the paper's logs did; one log a host does not.")
	assert.NotContains(t, c, "ruled out")
}
