package frangipani_test

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"

	"github.com/replab/replab/harness/sweep"
)

func TestOneClient(t *testing.T) {
	testSpec(t, sweep.LockSpec{Config: sweep.LockConfig(), Clients: 1}, 1)
}

func TestDisjointKeys(t *testing.T) {
	testSpec(t, sweep.LockSpec{Config: sweep.LockConfig(), Clients: 5}, 1)
}

func TestSharedKey(t *testing.T) {
	testSpec(t, sweep.LockSpec{Config: sweep.LockConfig(), Clients: 5, Keys: 1}, 1)
}

func TestIsolatedReaderWithinDriftBound(t *testing.T) {
	for _, seed := range simtest.Seeds(t, 1, 2, 3) {
		isolatedReaderCase(t, seed, frangipani.DefaultConfig())
	}
}

// TestIsolatedReaderBeyondDriftBoundFails shows what the margin is for:
// clocks drifting three times the bound the leases were sized for let the
// cut-off reader serve after the writer got the lock, and porcupine says
// so.
func TestIsolatedReaderBeyondDriftBoundFails(t *testing.T) {
	cfg := frangipani.DefaultConfig()
	for _, seed := range simtest.Seeds(t, 1, 2, 3) {
		r := isolatedReader(t, seed, cfg, 3*cfg.Drift)
		assert.Equal(t, porcupine.Illegal, r.Verdict, "seed %d: drift %v beyond the bound %v", seed, 3*cfg.Drift, cfg.Drift)
	}
}
