package sweep

import (
	"strconv"
	"strings"
	"testing"
	"time"

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
		servers, err := strconv.Atoi(firstField(drawn["servers"]))
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

// firstField is s up to its first space: a drawn value without the note
// after it ("5 (a flicker needs an odd count)").
func firstField(s string) string {
	s, _, _ = strings.Cut(s, " ")
	return s
}

// TestSwarmKVAimsAtLeases builds (without running) swarm-kv's first
// seeds: every seed aimed at the leases reads by lease, runs on a LAN
// with a reader at least and clerks that give up within
// swarmKVAimedTimeout, on an odd count of servers under flickers; and
// both lease nemeses come up.
func TestSwarmKVAimsAtLeases(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("swarm-kv")
	require.NoError(t, err)
	aimed := map[string]int{}
	for seed := int64(1); seed <= 100; seed++ {
		r, err := sc.Build(seed, "", nil)
		require.NoError(t, err)
		drawn := DrawnMap(r.Drawn)
		nemesis, ok := drawn["lease nemesis"]
		if !ok {
			continue
		}
		aimed[nemesis]++
		assert.Equal(t, "true", drawn["lease reads"], "seed %d", seed)
		assert.Equal(t, "false (a LAN)", drawn["unreliable"], "seed %d", seed)
		assert.NotEqual(t, "0", drawn["readers"], "seed %d", seed)
		timeout, err := time.ParseDuration(drawn["clerk timeout"])
		require.NoError(t, err, "seed %d", seed)
		assert.LessOrEqual(t, timeout, swarmKVAimedTimeout(), "seed %d", seed)
		if nemesis == "lease flickers" {
			assert.Equal(t, 1, r.Deploy.Groups[0].Replicas%2, "seed %d: a flicker needs an odd count of servers", seed)
		}
	}
	assert.Positive(t, aimed["lease flickers"])
	assert.Positive(t, aimed["skewed cut-offs"])
}
