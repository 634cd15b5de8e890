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
