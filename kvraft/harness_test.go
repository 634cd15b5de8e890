package kvraft_test

// Our own tests run on the catalogue's harness (kvtest.Harness, on the
// cluster harness), with the service's options.

import (
	"testing"

	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/sim/simtest"
)

// A scenario is a test body that runs our service with the given options.
type scenario func(t simtest.T, seed int64, opts kvraft.Options) *kvtest.Harness

// runScenario runs sc as a test over the catalogue's seeds (or -seed),
// with the default options, in parallel with the package's other tests.
func runScenario(t *testing.T, sc scenario) {
	t.Parallel()
	simtest.Run(t, kvtest.DefaultSeeds, func(t *testing.T, seed int64) simtest.Result {
		return sc(t, seed, kvraft.DefaultOptions()).Result()
	})
}

// makeConfig builds n of our servers with opts on a fresh world for seed,
// all connected, snapshotting at maxraftstate bytes (-1: never).
func makeConfig(t simtest.T, seed int64, n int, unreliable bool, maxraftstate int, opts kvraft.Options) *kvtest.Harness {
	t.Helper()
	return kvtest.New(t, seed, n, unreliable, maxraftstate, service(opts))
}

// catalogue makes a test of the catalogue a scenario.
func catalogue(test kvtest.Test) scenario {
	return func(t simtest.T, seed int64, opts kvraft.Options) *kvtest.Harness {
		return test.Body(t, seed, service(opts))
	}
}

// clerk returns a client's clerk: ours.
func clerk(c *kvtest.Client) *kvraft.Clerk { return c.Clerk().(*kvraft.Clerk) }
