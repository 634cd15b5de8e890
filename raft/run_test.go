package raft

import (
	"testing"

	"github.com/replab/replab/simtest"
)

// A scenario is one test of the catalogue: it builds a cluster with the
// given node config on a world for seed, runs, and checks through t.
type scenario func(t simtest.T, seed int64, rc Config) *config

// defaultSeeds are the seeds every randomized test runs by default.
var defaultSeeds = []int64{1, 2, 3}

// runScenario runs sc as a test over the default seeds (or -seed), with
// the lab's timing.
func runScenario(t *testing.T, sc scenario) {
	simtest.Run(t, defaultSeeds, func(t *testing.T, seed int64) simtest.Result {
		return sc(t, seed, LabConfig()).result()
	})
}
