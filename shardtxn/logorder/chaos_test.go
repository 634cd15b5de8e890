package logorder_test

import (
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"testing"
	"time"

	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweepCase runs the sweep's logorder scenario (list appends, or with
// bank the bank workload) with cfg, failing t with its problem.
func sweepCase(bank bool) func(t simtest.T, seed int64, cfg logorder.Config) {
	return func(t simtest.T, seed int64, cfg logorder.Config) {
		rec, err := logordertest.Spec{Name: "test", Config: cfg, Bank: bank}.Run(seed, "", nil)
		require.NoError(t, err)
		if !rec.OK() {
			t.Fatalf("seed %d: %s\nfault log:\n%s", seed, rec.Problem, rec.FaultLog)
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
		sp := logordertest.Spec{Name: t.Name(), Config: logordertest.Config(), Bank: bank, ChaosFor: testChaosFor}
		rec, err := sp.Run(seed, t.TempDir(), nil)
		require.NoError(t, err)
		require.True(t, rec.OK(), "seed %d: %s\nreplay: %s\nfault log:\n%s", seed, rec.Problem, simtest.ReplayCommand(t.Name(), seed), rec.FaultLog)
		assert.GreaterOrEqual(t, rec.Ops, 10, "transactions run: the check has a history to judge (the nemesis may keep a node down throughout)")
		again, err := sp.Run(seed, "", nil)
		require.NoError(t, err)
		assert.Equal(t, rec.Summary, again.Summary, "the seed replays")
		t.Logf("seed %d: %d ops, %v", seed, rec.Ops, rec.Summary)
	}
}

// TestFailover runs paper 004's failover timeline at its length (150 s of
// bank transfers, the log's leader and a follower killed in turn), with
// progress checked after every restart and fewer versions kept than a
// restarted node is behind, on seed 2 (the sweeps' test runs seed 1 and
// replays it; labsim sweep logorder-failover runs many).
func TestFailover(t *testing.T) {
	t.Parallel()
	for _, seed := range simtest.Seeds(t, 2) {
		sp := logordertest.Spec{Name: t.Name(), Config: logordertest.FailoverConfig(), Bank: true, Failover: true}
		rec, err := sp.Run(seed, "", nil)
		require.NoError(t, err)
		require.True(t, rec.OK(), "seed %d: %s\nreplay: %s\nfault log:\n%s", seed, rec.Problem, simtest.ReplayCommand(t.Name(), seed), rec.FaultLog)
		assert.Greater(t, rec.World.Now(), 150*time.Second, "the whole timeline ran")
		t.Logf("seed %d: %d ops, %v", seed, rec.Ops, rec.Summary)
	}
}
