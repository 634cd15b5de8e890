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

// TestSwarmLocksPassesAndReplays runs swarm-locks' seeds 2–5 (seed 1 draws
// a minute of virtual time and costs seconds): each must pass, print its
// whole configuration, and seed 2 replay to the same trace with the same
// configuration. The seeds draw different configurations.
func TestSwarmLocksPassesAndReplays(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("swarm-locks")
	require.NoError(t, err)
	out := Run(sc, []int64{2, 3, 4, 5}, 2, t.TempDir(), nil)
	servers := map[string]bool{}
	for _, o := range out {
		require.True(t, o.OK(), "seed %d: %s\ndrawn: %v", o.Seed, o.Problem, o.Drawn)
		assert.Positive(t, o.Ops, "seed %d", o.Seed)
		for _, name := range []string{"lock-servers", "clerks", "readers", "keys", "mix", "value-size", "length", "think", "lease", "drift-bound",
			"renew-every", "rpc-timeout", "locks-only", "max-raft-state", "network", "duplicate", "faults", "progress"} {
			assert.Contains(t, o.Drawn, name, "seed %d", o.Seed)
		}
		servers[o.Drawn["lock-servers"]+" "+o.Drawn["clerks"]+" "+o.Drawn["lease"]] = true
	}
	assert.Len(t, servers, len(out), "each seed draws its own configuration")
	again := sc.Run(2, t.TempDir(), nil)
	assert.Equal(t, out[0].Summary, again.Summary, "seed 2 replays to the same trace")
	assert.Equal(t, out[0].Drawn, again.Drawn)
	assert.NotEmpty(t, again.FaultLog, "a replay has its fault log")
}
