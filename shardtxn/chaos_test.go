package shardtxn_test

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shape of the chaos runs.
const (
	chaosFor = 10 * time.Second // faults, then heal
	settle   = 30 * time.Second // the bound on finishing everything after healing
	clients  = 5
)

// clerks returns n workload clients of d, each on a host of its own.
func (d *deployment) clerks(n int) []workload.TxnClient {
	out := make([]workload.TxnClient, n)
	for i := range out {
		out[i] = services.TxnClient{Clerk: services.ShardTxnClerk(d.c, fmt.Sprintf("client%d", i))}
	}
	return out
}

// chaos runs a random nemesis (kills, restarts, partitions, isolation of
// the shared hosts, so of coordinator and shard leaders alike) while run
// goes on, then heals everything, stops run and checks liveness: every
// transaction ends, and the lock tables and the coordinator's table drain,
// within settle of virtual time.
func (d *deployment) chaos(t simtest.T, run *workload.Run) {
	t.Helper()
	n, err := d.c.Monkey().StartNemesis(chaos.NemesisConfig{Interval: 400 * time.Millisecond, Weights: chaos.DefaultWeights()})
	require.NoError(t, err)
	d.w.Run(chaosFor)
	n.Stop()
	d.heal(t)
	run.Stop()
	healed := d.w.Now()
	require.True(t, d.w.RunUntil(run.Finished, settle), "every transaction ends within %v of healing", settle)
	require.True(t, d.w.RunUntil(d.drained, settle-(d.w.Now()-healed)), "locks and the coordinator's table drain within %v of healing", settle)
}

// heal lifts every partition and restarts every dead host.
func (d *deployment) heal(t simtest.T) {
	m := d.c.Monkey()
	require.NoError(t, m.Apply(fault.Fault{Kind: fault.Heal}))
	for i, alive := range m.Alive() {
		if !alive {
			require.NoError(t, m.Apply(fault.Fault{Kind: fault.Restart, Host: i}))
		}
	}
}

// lists runs the list-append workload under chaos and checks its history
// for strict serializability.
func lists(t simtest.T, seed int64, cfg shardtxn.Config) *deployment {
	d := deploy(t, seed, standard(cfg))
	d.c.Net().Reliable(false)
	var h txncheck.History
	run := workload.StartLists(d.w, d.clerks(clients), workload.ListSpec{Keys: 6, MaxOps: 4, Reads: 0.5, Think: 10 * time.Millisecond}, &h)
	d.chaos(t, run)
	r, err := txncheck.Check(&h, txncheck.StrictSerializable)
	require.NoError(t, err)
	committed := 0
	for _, txn := range h.Txns() {
		if txn.Outcome == txncheck.OK {
			committed++
		}
	}
	assert.True(t, r.OK(), "%v", r)
	t.Logf("%d transactions, %d committed", h.Len(), committed)
	assert.Greater(t, committed, h.Len()/4, "transactions commit under contention (%d of %d)", committed, h.Len())
	return d
}

// banking runs the bank workload under chaos and checks that every read
// of the balances adds up.
func banking(t simtest.T, seed int64, cfg shardtxn.Config) *deployment {
	const accounts, each = 5, 100
	d := deploy(t, seed, standard(cfg))
	d.c.Net().Reliable(false)
	setup := services.ShardTxnClerk(d.c, "setup")
	var init []shardtxn.Op
	for a := range accounts {
		init = append(init, shardtxn.Set(services.Account(a), fmt.Sprint(each)))
	}
	require.True(t, d.run(t, setup, init...).Committed)
	var h bank.History
	run := workload.StartBank(d.w, d.clerks(clients), workload.BankSpec{Accounts: accounts, MaxAmount: 30, Reads: 0.5, Think: 10 * time.Millisecond}, &h)
	d.chaos(t, run)
	r, err := bank.Check(&h, bank.Config{Accounts: accounts, Total: accounts * each})
	require.NoError(t, err)
	assert.True(t, r.Valid, "%v", r)
	t.Logf("%v", r)
	assert.Greater(t, r.Reads, 5, "reads of every balance committed")
	return d
}
