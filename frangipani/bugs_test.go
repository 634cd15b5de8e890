package frangipani_test

import (
	"testing"
	"time"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/sim/simtest"
)

// TestPlantedBugsCaught plants each of frangipani's bugs in turn and shows
// that the suite's checks catch it, with the test and seed that did.
func TestPlantedBugsCaught(t *testing.T) {
	t.Parallel()
	bugs := frangipani.PlantedBugs()
	spec := func(name string, sp sweep.LockSpec) simtest.Case[frangipani.Config] {
		return simtest.Case[frangipani.Config]{Name: name, Run: func(t simtest.T, seed int64, cfg frangipani.Config) {
			sp.Config = cfg
			runSpec(t, sp, seed)
		}}
	}
	cfg := sweep.LockConfig()
	// The drift case catches the two bugs of the hand-over on each of
	// seeds 1-3 in 2 s, the isolate case (no drift) on fewer: drift goes
	// first, and isolate stays as a second try.
	cases := []simtest.Case[frangipani.Config]{
		{Name: "isolated reader", Run: isolatedReaderCase},
		spec("drift", sweep.LockSpec{Clients: 5, Keys: 2, Isolate: true, Drift: cfg.Drift, For: 2 * time.Second}),
		spec("isolate", sweep.LockSpec{Clients: 5, Keys: 2, Isolate: true, For: 2 * time.Second}),
	}
	simtest.HuntBugs(t, sweep.LockConfig, bugs, cases, 3)
}
