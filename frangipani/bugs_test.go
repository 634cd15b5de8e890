package frangipani_test

import (
	"testing"
	"time"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/sim/simtest"
)

// TestPlantedBugsCaught plants each of frangipani's bugs in turn and shows
// that the suite's checks catch it, with the test and seed that did.
func TestPlantedBugsCaught(t *testing.T) {
	t.Parallel()
	bugs := frangipani.PlantedBugs()
	spec := func(name string, sp frangipanitest.Spec) simtest.Case[frangipani.Config] {
		return simtest.Case[frangipani.Config]{Name: name, Run: func(t simtest.T, seed int64, cfg frangipani.Config) {
			sp.Config = cfg
			runSpec(t, sp, seed)
		}}
	}
	cfg := frangipanitest.Config()
	// The drift and isolate cases catch the two bugs of the hand-over in
	// 2 s on some seeds each, not the same ones: both stay as tries.
	cases := []simtest.Case[frangipani.Config]{
		{Name: "isolated reader", Run: isolatedReaderCase},
		spec("drift", frangipanitest.Spec{Clients: 5, Keys: 2, Isolate: true, Drift: cfg.Drift, For: 2 * time.Second}),
		spec("isolate", frangipanitest.Spec{Clients: 5, Keys: 2, Isolate: true, For: 2 * time.Second}),
	}
	simtest.HuntBugs(t, frangipanitest.Config, bugs, cases, 3)
}
