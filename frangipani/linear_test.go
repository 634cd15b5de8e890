package frangipani_test

import (
	"testing"

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
