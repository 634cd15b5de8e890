package sweep

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

// TestCutScenariosPassAndReplay runs the first two seeds of each cut
// scenario: they must pass (the sweeps try many), the first must replay
// to the same trace, and its faults must be one-way cuts.
func TestCutScenariosPassAndReplay(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"txn-cuts", "txn-cuts-acid-rm"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Lookup(name)
			require.NoError(t, err)
			out := Run(sc, []int64{1, 2}, 2, t.TempDir(), nil)
			for _, o := range out {
				assert.True(t, o.OK(), "seed %d: %s", o.Seed, o.Problem)
				assert.Greater(t, o.Ops, 40)
			}
			again := sc.Run(1, t.TempDir(), nil)
			assert.Equal(t, out[0].Summary, again.Summary, "seed 1 replays to the same trace")
			assert.Contains(t, again.FaultLog, "cut ")
			assert.NotContains(t, again.FaultLog, "partition")
		})
	}
}

// TestRateBoundsEachSecond feeds rate worlds whose events a second are
// known (each second's load, and the rate's own event): a steady load
// passes, a second of exactly twice the calm's busiest passes, one more
// event in it fails, named with its second and the calm's busiest.
func TestRateBoundsEachSecond(t *testing.T) {
	run := func(perSecond ...int) string {
		w := sim.NewWorld(1)
		r := &rate{w: w}
		r.sample() // one event a second of its own
		for s, n := range perSecond {
			for i := range n {
				w.After(time.Duration(s)*time.Second+time.Duration(i+1)*time.Microsecond, func() {})
			}
		}
		w.Run(time.Duration(len(perSecond)) * time.Second)
		return r.problem()
	}
	assert.Empty(t, run(500, 999, 999, 999, 999), "steady")
	assert.Empty(t, run(500, 999, 1999, 600), "twice the calm's busiest second, at most")
	assert.Equal(t, "storm: 2001 events in second 3 of the run, more than 2 times the 1000 of the busiest second before the cuts", run(500, 999, 2000, 600))
	assert.Empty(t, run(1499, 999, 2999), "the calm's busiest second, the first here, is the baseline")
	assert.Equal(t, "storm: 3001 events in second 4 of the run, more than 2 times the 1000 of the busiest second before the cuts", run(500, 999, 999, 3000, 10000),
		"the first second past the bound is named")
}
