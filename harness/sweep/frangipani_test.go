package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLockDuplicatesPassesAndReplays runs locks-duplicates' first seeds:
// each must pass with requests duplicated, and the first replay to the
// same trace. Sweeps try the many seeds.
func TestLockDuplicatesPassesAndReplays(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("locks-duplicates")
	require.NoError(t, err)
	out := Run(sc, []int64{1, 2, 3}, 3, t.TempDir(), nil)
	for _, o := range out {
		assert.True(t, o.OK(), "seed %d: %s", o.Seed, o.Problem)
		assert.Greater(t, o.Ops, 100)
	}
	again := sc.Run(1, t.TempDir(), nil)
	assert.Contains(t, again.FaultLog, "duplicate 10% of requests")
	assert.Equal(t, out[0].Summary, again.Summary, "seed 1 replays to the same trace")
}
