package shardtxn_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/sweep"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlantedBugsCaught plants each of shardtxn's bugs in turn and shows
// that the suite's checks catch it, with the test and seed that did.
func TestPlantedBugsCaught(t *testing.T) {
	t.Parallel()
	bugs := shardtxn.PlantedBugs()
	cases := []simtest.Case[shardtxn.Config]{
		mid2PC(crashPoints[1], killLeader),
		mid2PC(crashPoints[0], strandLeader),
		mid2PC(crashPoints[1], cutCoordinators(shardtxn.DefaultConfig().TxnTimeout+time.Second)),
		mid2PC(crashPoints[0], strandWithShards),
		{Name: "abort with a cohort down", Run: func(t simtest.T, seed int64, cfg shardtxn.Config) { abortWithCohortDown(t, seed, cfg) }},
		{Name: "write skew", Run: writeSkew},
		{Name: "txn-lists", Run: sweepCase(false)},
	}
	simtest.HuntBugs(t, sweep.TxnConfig, bugs, cases, 3)
}

// writeSkew has two clients run, round after round at the same moment,
// transactions that read one key and append to the other, crosswise (the
// shape of write skew), and checks the history for strict
// serializability: read locks held to the decision make one of each pair
// wait for the other.
func writeSkew(t simtest.T, seed int64, cfg shardtxn.Config) {
	d := deploy(t, seed, standard(cfg))
	var h txncheck.History
	clients := d.clerks(2)
	for round := 1; round <= 20; round++ {
		ended := 0
		for i, ck := range clients {
			ops := []txncheck.Op{txncheck.Read(i), txncheck.Append(1-i, round)}
			id := h.Invoke(i, ops, d.w.Now())
			ck.ListTxn(ops, func(o txncheck.Outcome, done []txncheck.Op) {
				h.Complete(id, o, done, d.w.Now())
				ended++
			})
		}
		require.True(t, d.w.RunUntil(func() bool { return ended == 2 }, 30*time.Second))
	}
	r, err := txncheck.Check(&h, txncheck.StrictSerializable)
	require.NoError(t, err)
	assert.True(t, r.OK(), "%v", r)
}

func mid2PC(p crashPoint, f disruption) simtest.Case[shardtxn.Config] {
	return simtest.Case[shardtxn.Config]{Name: f.name + " " + p.name, Run: func(t simtest.T, seed int64, cfg shardtxn.Config) { crashMid2PC(t, seed, cfg, p, f) }}
}

// crossing has two clients run transactions that lock two keys on two
// shards in opposite orders, over and over: each can hold one key while it
// waits for the other. With randomized lock waits one of a deadlocked pair
// gives up first and the other commits: transactions keep committing.
func crossing(t simtest.T, seed int64, cfg shardtxn.Config) {
	d := deploy(t, seed, standard(cfg))
	// Messages delayed at random, so prepares arrive in either order.
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Unreliable, On: true}))
	a, b := d.keysOn()
	const rounds = 40
	commits, done := 0, 0
	for i := range 2 {
		ck := services.ShardTxnClerk(d.c, fmt.Sprintf("client%d", i))
		first, second := a, b
		if i == 1 {
			first, second = b, a
		}
		var round func(n int)
		round = func(n int) {
			if n == rounds {
				done++
				return
			}
			require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(first, "x"), shardtxn.Set(second, "y")}, func(o shardtxn.Outcome) {
				if o.Committed {
					commits++
				}
				round(n + 1)
			}))
		}
		round(0)
	}
	require.True(t, d.w.RunUntil(func() bool { return done == 2 }, time.Minute), "both clients finish")
	assert.GreaterOrEqual(t, commits, rounds/2, "at least a quarter of %d crossing transactions commit", 2*rounds)
}

// TestCrossingTransactions runs crossing with no bug planted, under each
// variant: paper 000's three times, the others once.
func TestCrossingTransactions(t *testing.T) {
	t.Parallel()
	for i, v := range services.TxnVariants() {
		t.Run(v.String(), func(t *testing.T) {
			for seed := int64(1); seed <= 3 && (i == 0 || seed == 1); seed++ {
				crossing(t, seed, config(v))
			}
		})
	}
}

// TestWriteSkew runs writeSkew with no bug planted under each variant:
// paper 000's on the seeds the bug hunt tries, the others once.
func TestWriteSkew(t *testing.T) {
	t.Parallel()
	for i, v := range services.TxnVariants() {
		t.Run(v.String(), func(t *testing.T) {
			for seed := int64(1); seed <= 3 && (i == 0 || seed == 1); seed++ {
				writeSkew(t, seed, v.With(sweep.TxnConfig()))
			}
		})
	}
}
