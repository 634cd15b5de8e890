package logorder_test

import (
	"testing"
	"time"

	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweepCase runs the sweep's logorder scenario (list appends, or with
// bank the bank workload) with cfg, failing t with its problem.
func sweepCase(bank bool) func(t simtest.T, seed int64, cfg logorder.Config) {
	return func(t simtest.T, seed int64, cfg logorder.Config) {
		o, _ := sweep.LogOrderSpec{Name: "test", Config: cfg, Bank: bank}.Run(seed, "", nil)
		if !o.OK() {
			t.Fatalf("seed %d: %s\nfault log:\n%s", seed, o.Problem, o.FaultLog)
		}
	}
}

// testChaosFor is how long the tests' clients run under faults: 4 s of
// the sweep scenarios' 10 s, which their sweeps run over many seeds.
const testChaosFor = 4 * time.Second

// TestStrictSerializable runs list-append transactions under a random
// nemesis, checks that the nodes agree on every outcome and the history
// with txncheck, and replays the seed to the same trace.
func TestStrictSerializable(t *testing.T) { testSweep(t, false) }

// TestBank runs bank transfers and reads of every balance under a random
// nemesis and checks that every read adds up.
func TestBank(t *testing.T) { testSweep(t, true) }

func testSweep(t *testing.T, bank bool) {
	for _, seed := range simtest.Seeds(t, 1) {
		sp := sweep.LogOrderSpec{Name: t.Name(), Config: sweep.LogOrderConfig(), Bank: bank, ChaosFor: testChaosFor}
		o, w := sp.Run(seed, t.TempDir(), nil)
		require.True(t, o.OK(), "seed %d: %s\nreplay: %s\nfault log:\n%s", seed, o.Problem, simtest.ReplayCommand(t.Name(), seed), o.FaultLog)
		assert.GreaterOrEqual(t, o.Ops, 10, "transactions run: the check has a history to judge (the nemesis may keep a node down throughout)")
		again, _ := sp.Run(seed, "", nil)
		assert.Equal(t, w.Summary(), again.Summary, "the seed replays")
		t.Logf("seed %d: %d ops, %v", seed, o.Ops, w.Summary())
	}
}

// TestFailover runs paper 004's failover timeline at its length (150 s of
// bank transfers, the log's leader and a follower killed in turn), with
// progress checked after every restart and fewer versions kept than a
// restarted node is behind, on seed 2 (the sweeps' test runs seed 1 and
// replays it; labsim sweep logorder-failover runs many).
func TestFailover(t *testing.T) {
	for _, seed := range simtest.Seeds(t, 2) {
		sp := sweep.LogOrderSpec{Name: t.Name(), Config: sweep.FailoverConfig(), Bank: true, Failover: true}
		o, w := sp.Run(seed, "", nil)
		require.True(t, o.OK(), "seed %d: %s\nreplay: %s\nfault log:\n%s", seed, o.Problem, simtest.ReplayCommand(t.Name(), seed), o.FaultLog)
		assert.Greater(t, w.Now(), 150*time.Second, "the whole timeline ran")
		t.Logf("seed %d: %d ops, %v", seed, o.Ops, w.Summary())
	}
}
