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
	cases := []simtest.Case[frangipani.Config]{
		{Name: "isolated reader", Run: isolatedReaderCase},
		spec("isolate", sweep.LockSpec{Clients: 5, Keys: 2, Isolate: true, For: 3 * time.Second}),
		spec("drift", sweep.LockSpec{Clients: 5, Keys: 2, Isolate: true, Drift: cfg.Drift, For: 3 * time.Second}),
	}
	simtest.HuntBugs(t, sweep.LockConfig, bugs, cases, 3)
}
