package raft

// White-box tests run on the catalogue's harness (rafttest.Harness, on the
// cluster harness) and reach into the nodes it made.

import (
	"testing"

	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/simtest"
)

// config is the catalogue's harness, with the test and our nodes' insides.
type config struct {
	*rafttest.Harness
	t simtest.T
}

// makeConfig builds a cluster of n of our nodes with rc on a fresh world
// for seed, all connected.
func makeConfig(t simtest.T, seed int64, n int, unreliable, snapshot bool, rc Config) *config {
	t.Helper()
	return &config{Harness: rafttest.New(t, seed, n, unreliable, snapshot, Maker(rc)), t: t}
}

// raft returns server i's node, or nil while it is crashed.
func (cfg *config) raft(i int) *Raft {
	rf, _ := cfg.Node(i).(*Raft)
	return rf
}

// A scenario is a white-box test body: it builds a cluster with the given
// node config on a world for seed, runs, and checks through t.
type scenario func(t simtest.T, seed int64, rc Config) *config

// runScenario runs sc as a test over the catalogue's seeds (or -seed), with
// the lab's timing, in parallel with the package's other such tests.
func runScenario(t *testing.T, sc scenario) {
	t.Parallel()
	simtest.Run(t, rafttest.DefaultSeeds, func(t *testing.T, seed int64) simtest.Result {
		return sc(t, seed, LabConfig()).Result()
	})
}
