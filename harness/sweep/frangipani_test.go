package sweep

import (
	"strconv"
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

// TestSwarmLocksPassesAndReplays runs swarm-locks' seeds 2–5 (seed 1 draws
// a minute of virtual time and costs seconds): each must pass, print its
// whole configuration, and seed 2 replay to the same trace with the same
// configuration. The seeds draw different configurations.
func TestSwarmLocksPassesAndReplays(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("swarm-locks")
	require.NoError(t, err)
	out := Run(sc, []int64{2, 3, 4, 5}, 2, t.TempDir(), nil)
	configs := map[string]bool{}
	for _, o := range out {
		require.True(t, o.OK(), "seed %d: %s\ndrawn: %v", o.Seed, o.Problem, o.Drawn)
		assert.Positive(t, o.Ops, "seed %d", o.Seed)
		drawn := DrawnMap(o.Drawn)
		for _, name := range []string{"lock-servers", "keys", "clerks and readers", "clerks", "length", "think", "lease",
			"renew every", "rpc timeout", "locks only", "unreliable", "latency", "faults", "progress bound"} {
			assert.Contains(t, drawn, name, "seed %d", o.Seed)
		}
		servers, err := strconv.Atoi(drawn["lock-servers"])
		require.NoError(t, err)
		assert.True(t, servers >= 3 && servers <= 7, "seed %d: %d lock servers", o.Seed, servers)
		configs[drawn["lock-servers"]+" "+drawn["clerks and readers"]+" "+drawn["lease"]] = true
	}
	assert.Len(t, configs, len(out), "each seed draws its own configuration")
	again := sc.Run(2, t.TempDir(), nil)
	assert.Equal(t, out[0].Summary, again.Summary, "seed 2 replays to the same trace")
	assert.Equal(t, out[0].Drawn, again.Drawn)
	assert.NotEmpty(t, again.FaultLog, "a replay has its fault log")
}

// TestSwarmLocksBuildsWhatItDraws builds the seeds of the second 10 000
// whose runs could not be built: 10206, whose maximum hold, drawn as about
// one linger and rounded to the microsecond, fell below the linger (88 µs
// against 88.103 µs), a configuration frangipani refuses; and 19676, whose
// long renewal (660 ms) and RPC timeout (2.546 s) left no burst of lock
// server faults short of BreakAfter, though it drew clerks cut off, which
// need none.
func TestSwarmLocksBuildsWhatItDraws(t *testing.T) {
	sc, err := Lookup("swarm-locks")
	require.NoError(t, err)
	for _, seed := range []int64{10206, 19676} {
		_, err = sc.Build(seed, t.TempDir(), nil)
		assert.NoError(t, err, "seed %d", seed)
	}
}
