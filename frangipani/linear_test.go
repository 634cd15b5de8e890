package frangipani_test

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"

	"github.com/replab/replab/frangipani/frangipanitest"
)

// TestLinearizable runs caching clerks under each kind of trouble and
// checks every history with porcupine (an unknown verdict fails), that
// every operation completed after healing, and that no clerk lost a write.
func TestLinearizable(t *testing.T) {
	t.Parallel()
	cfg := frangipanitest.Config()
	for _, c := range []struct {
		name string
		sp   frangipanitest.Spec
	}{
		{"one client", frangipanitest.Spec{Clients: 1, For: 3 * time.Second}},
		{"disjoint keys", frangipanitest.Spec{Clients: 5, For: 2 * time.Second}},
		{"shared key", frangipanitest.Spec{Clients: 5, Keys: 1, For: time.Second}},
		{"unreliable network", frangipanitest.Spec{Clients: 5, Keys: 2, Unreliable: true, For: 5 * time.Second}},
		{"isolated holders", frangipanitest.Spec{Clients: 5, Keys: 2, Unreliable: true, Isolate: true, For: 5 * time.Second}},
		{"leader kills", frangipanitest.Spec{Clients: 5, Keys: 2, Unreliable: true, KillLeaders: true, For: 6 * time.Second}},
		{"clock drift", frangipanitest.Spec{Clients: 5, Keys: 2, Isolate: true, Drift: cfg.Drift, For: 2 * time.Second}},
		{"duplicated requests", frangipanitest.Spec{Clients: 5, Keys: 2, Unreliable: true, Duplicate: 0.1, For: 2 * time.Second}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.sp.Name, c.sp.Config = c.name, cfg
			testSpec(t, c.sp, 1)
		})
	}
}

func TestIsolatedReaderWithinDriftBound(t *testing.T) {
	t.Parallel()
	for _, seed := range simtest.Seeds(t, 1, 2, 3) {
		isolatedReaderCase(t, seed, frangipani.DefaultConfig())
	}
}

// TestIsolatedReaderBeyondDriftBoundFails shows what the margin is for:
// clocks drifting three times the bound the leases were sized for let the
// cut-off reader serve after the writer got the lock, and porcupine says
// so.
func TestIsolatedReaderBeyondDriftBoundFails(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	for _, seed := range simtest.Seeds(t, 1, 2, 3) {
		r := isolatedReader(t, seed, cfg, 3*cfg.Drift)
		assert.Equal(t, porcupine.Illegal, r.Verdict, "seed %d: drift %v beyond the bound %v", seed, 3*cfg.Drift, cfg.Drift)
	}
}

// TestLocksOnlyLiveBehindLongQueues has eight clerks that take the lock
// for every operation (LocksOnly) share one key, with leases so short
// (200 ms) that each waits behind the others for longer than a lease: its
// grant arrives with its lease run out. Every operation must still
// complete (the clerk keeps such a lock until its first renewal, which
// the lock service grants although others wait), and the history must be
// linearizable. Each holder, told by its grant that others wait, serves
// about one operation a hand-over: the run lasts 4 s for the 50
// operations testSpec asks for.
func TestLocksOnlyLiveBehindLongQueues(t *testing.T) {
	t.Parallel()
	cfg := frangipanitest.Config()
	cfg.LocksOnly = true
	cfg.Lease, cfg.RenewEvery, cfg.RPCTimeout = 200*time.Millisecond, 20*time.Millisecond, 50*time.Millisecond
	testSpec(t, frangipanitest.Spec{Name: "locks only, long queues", Config: cfg, Clients: 8, Keys: 1, Unreliable: true, For: 4 * time.Second}, 1)
}
