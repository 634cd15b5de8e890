package experiments

import (
	"testing"
	"time"

	"github.com/replab/replab/shardtxn/logorder"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamiCacheHelpsOnlyAHotSet runs nami-cache's four points cut down to
// 200 ms: over the paper's 30 000 accounts nearly every decision asks
// another node, cache or not; over the hot set the cache spares many of
// them a fetch; and the caption gives those shares as the data make them.
func TestNamiCacheHelpsOnlyAHotSet(t *testing.T) {
	t.Parallel()
	designs := []bankDesign{namiFive(), logOrdered("without cache", 5, 2, 0)}
	accounts := []int{bankAccounts, namiHotAccounts}
	var points []cachePoint
	for _, n := range accounts {
		for _, d := range designs {
			e, err := d.deploy(1)
			require.NoError(t, err)
			l := e.measure(5, n, 200*time.Millisecond)
			pt := cachePoint{rate: float64(len(l.at)) / 0.2}
			pt.p50, pt.p95, pt.p99 = percentiles(l.took)
			for i := range e.c.Replicas(0) {
				s := e.c.Replica(0, i).(*logorder.Server).Stats()
				pt.stats.Decided += s.Decided
				pt.stats.Remote += s.Remote
				pt.stats.CacheSaved += s.CacheSaved
			}
			require.Positive(t, pt.stats.Decided)
			points = append(points, pt)
		}
	}
	assert.Greater(t, points[0].remotePct(), 95.0, "the paper's accounts: the cache seldom holds every value")
	assert.Greater(t, points[1].remotePct(), 99.0, "no cache: every decision of a transfer asks")
	assert.Less(t, points[2].remotePct(), points[3].remotePct()-10, "the hot set: the cache spares many decisions a fetch, more as it fills")
	assert.Positive(t, points[2].stats.CacheSaved)
	assert.Zero(t, points[3].stats.CacheSaved)
	caption := namiCacheCaption(5, 200*time.Millisecond, accounts, points)
	assert.Contains(t, caption, "the cache does not help ours")
	assert.Contains(t, caption, "Over a hot set of 300 accounts")
	assert.Contains(t, caption, "with the cache, +5 % throughput, -10 % at p50, -26 % at p95 and +29 % at p99", "the paper's Table 3, computed")
}

// TestNamiStorageCostChargesCommitsOnly runs the single node one worker
// for 200 ms with and without the paper's baseline's storage cost: with
// it a commit waits for a disk write (begun as it arrived, so the rest of
// its work overlaps the write), a read does not, and the cost is the
// paper's own gap at one worker.
func TestNamiStorageCostChargesCommitsOnly(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 3600*time.Microsecond, namiStorageCost(), "20.1 less 16.5 ms")
	var commits, reads []float64
	for _, d := range []time.Duration{0, namiStorageCost()} {
		e, err := namiSingle().deploy(1)
		require.NoError(t, err)
		require.NoError(t, setDisks(e.c, d, namiReads...))
		l := e.measure(1, bankAccounts, 200*time.Millisecond)
		c, _, _ := percentiles(l.times.Took["commit"])
		r, _, _ := percentiles(l.times.Took["getAsOf"])
		commits, reads = append(commits, c), append(reads, r)
	}
	assert.Greater(t, commits[1], commits[0]+2, "a commit waits for the disk write its save started")
	assert.Less(t, commits[1], commits[0]+3.6, "which began as the commit arrived, and overlaps the rest of its work")
	assert.InDelta(t, reads[0], reads[1], 0.05, "a read does not")
}

// TestNamiWorkersCaptionSaysWhereNamiLeads gives the caption made-up
// points: it names the worker counts at which 3-node Nami outran the
// single node with the storage cost, and the share of slow transactions.
func TestNamiWorkersCaptionSaysWhereNamiLeads(t *testing.T) {
	workers := []int{1, 5, 40}
	pt := func(rate float64) workersPoint { return workersPoint{rate: rate, p50: 10, commitP50: 2, txns: 10} }
	points := []workersPoint{
		pt(100), pt(500), pt(3000), // single node
		{rate: 20, txns: 10, slow: 3}, pt(450), pt(1000), // 3 nodes
		pt(20), pt(400), pt(900), // 5 nodes
		pt(90), pt(300), pt(2000), // single node with the cost
	}
	caption := namiWorkersCaption(time.Second, workers, points)
	assert.Contains(t, caption, "Our single node beats Nami at every load")
	assert.Contains(t, caption, "3-node Nami is ahead of it in throughput at 5 workers (")
	assert.Contains(t, caption, "3 of the 10 transactions on 3 nodes took 50ms or more")
	assert.Contains(t, caption, "behind at 40 workers (119 against 133 a second)")
}
