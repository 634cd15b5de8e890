package sweep

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSwarmKVDrawsAndReplays runs swarm-kv's first seeds: each passes,
// draws a configuration of its own within the stated bounds, and replays
// to the same trace.
func TestSwarmKVDrawsAndReplays(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("swarm-kv")
	require.NoError(t, err)
	configs := map[string]bool{}
	for seed := int64(1); seed <= 3; seed++ {
		first, again := sc.Run(seed, t.TempDir(), nil), sc.Run(seed, t.TempDir(), nil)
		require.True(t, first.OK(), "seed %d: %s", seed, first.Problem)
		assert.Equal(t, first.Summary, again.Summary, "seed %d replays to the same trace", seed)
		assert.Equal(t, first.Drawn, again.Drawn)
		drawn := DrawnMap(first.Drawn)
		servers, err := strconv.Atoi(drawn["servers"])
		require.NoError(t, err, "seed %d: %v", seed, first.Drawn)
		assert.True(t, servers >= 3 && servers <= 7, "seed %d: %d servers", seed, servers)
		clients, err := strconv.Atoi(drawn["clients"])
		require.NoError(t, err)
		assert.True(t, clients >= 1 && clients <= 50, "seed %d: %d clients", seed, clients)
		assert.Contains(t, drawn, "progress bound")
		configs[drawn["servers"]+"/"+drawn["clients"]+"/"+drawn["length"]] = true
	}
	assert.Len(t, configs, 3, "every seed a configuration of its own")
}
