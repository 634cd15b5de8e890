package shardtxn_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clerks returns n workload clients of d, each on a host of its own.
func (d *deployment) clerks(n int) []workload.TxnClient {
	out := make([]workload.TxnClient, n)
	for i := range out {
		out[i] = txntest.Client{Clerk: txntest.Clerk(d.c, fmt.Sprintf("client%d", i))}
	}
	return out
}

// sweepCase runs the sweep's transaction scenario (list appends, or with
// bank the bank workload) with cfg, failing t with its problem.
func sweepCase(bank bool) func(t simtest.T, seed int64, cfg shardtxn.Config) {
	return func(t simtest.T, seed int64, cfg shardtxn.Config) {
		rec, err := txntest.Spec{Name: "test", Config: cfg, Bank: bank}.Run(seed, "", nil)
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
// nemesis, checks the history with txncheck and every lock released, and
// replays the seed to the same trace.
func TestStrictSerializable(t *testing.T) {
	t.Parallel()
	testSweep(t, false)
}

// TestBank runs bank transfers and reads of every balance under a random
// nemesis and checks that every read adds up.
func TestBank(t *testing.T) {
	t.Parallel()
	testSweep(t, true)
}

// testSweep runs the scenario under the variants of paper 000's and paper
// 003's options: the list scenario under each, replaying paper 000's
// design (the default) and paper 003's to the same trace; the bank, the
// suite's most expensive test, under those two designs alone (its sweep
// scenarios run the other two).
func testSweep(t *testing.T, bank bool) {
	variants := txntest.Variants()
	if bank {
		variants = []txntest.Variant{variants[0], variants[len(variants)-1]}
	}
	for i, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			for _, seed := range simtest.Seeds(t, 1) {
				sp := txntest.Spec{Name: t.Name(), Config: discovered(v.With(txntest.Config())), Bank: bank, ChaosFor: testChaosFor}
				rec, err := sp.Run(seed, t.TempDir(), nil)
				require.NoError(t, err)
				require.True(t, rec.OK(), "seed %d: %s\nreplay: %s\nfault log:\n%s", seed, rec.Problem, simtest.ReplayCommand(t.Name(), seed), rec.FaultLog)
				assert.Greater(t, rec.Ops, 30, "transactions run")
				if !bank && (i == 0 || i == len(variants)-1) {
					again, err := sp.Run(seed, "", nil)
					require.NoError(t, err)
					assert.Equal(t, rec.Summary, again.Summary, "the seed replays")
				}
			}
		})
	}
}
