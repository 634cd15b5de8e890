package frangipani_test

import (
	"testing"

	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runSpec runs a sweep scenario shape for a seed, failing t with its
// problem and fault log.
func runSpec(t simtest.T, sp sweep.LockSpec, seed int64) sweep.Outcome {
	t.Helper()
	o, _ := sp.Run(seed, "", nil)
	if !o.OK() {
		t.Fatalf("%s seed %d: %s\nfault log:\n%s", sp.Name, seed, o.Problem, o.FaultLog)
	}
	return o
}

// testSpec runs a scenario shape over seeds, checks each and that the
// first replays to the same trace.
func testSpec(t *testing.T, sp sweep.LockSpec, seeds ...int64) {
	for _, seed := range simtest.Seeds(t, seeds...) {
		o, w := sp.Run(seed, t.TempDir(), nil)
		require.True(t, o.OK(), "seed %d: %s\nreplay: %s\nfault log:\n%s", seed, o.Problem, simtest.ReplayCommand(t.Name(), seed), o.FaultLog)
		t.Logf("%s seed %d: %d ops, virtual %v, trace %016x", t.Name(), seed, o.Ops, w.Now(), w.TraceHash())
		assert.Greater(t, o.Ops, 50, "operations run")
		again, _ := sp.Run(seed, "", nil)
		assert.Equal(t, w.Summary(), again.Summary, "the seed replays")
	}
}
