package logorder_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const accounts = 6

// bankRun opens the accounts and runs transfers (and, with reads, reads
// of every balance) from clients for span; it returns the history.
func (d *deployment) bankRun(t simtest.T, clients int, reads float64, span time.Duration) *bank.History {
	t.Helper()
	ck := d.clerk()
	tx := d.begin(t, ck, 0)
	for a := range accounts {
		require.NoError(t, tx.Put(logordertest.Key("acct", a), "100"))
	}
	_, o := d.commit(t, tx)
	require.Equal(t, logorder.Applied, o)
	cs := make([]workload.TxnClient, clients)
	for i := range cs {
		cs[i] = logordertest.Client{Clerk: d.clerk()}
	}
	var h bank.History
	run := workload.StartBank(d.w, cs, workload.BankSpec{Accounts: accounts, MaxAmount: 20, Reads: reads, Think: time.Millisecond}, &h)
	d.w.Run(span)
	run.Stop()
	require.True(t, d.w.RunUntil(run.Finished, 10*time.Second), "the clients finish")
	r, err := bank.Check(&h, bank.Config{Accounts: accounts, Total: accounts * 100})
	require.NoError(t, err)
	require.True(t, r.Valid, "%v", r)
	require.Empty(t, d.disagreement())
	return &h
}

// stats sums the nodes' counts.
func (d *deployment) stats() (s logorder.Stats) {
	for i := range d.c.Replicas(0) {
		n := d.server(i).Stats()
		s.Decided += n.Decided
		s.Skipped += n.Skipped
		s.Fetches += n.Fetches
		s.CacheHits += n.CacheHits
	}
	return s
}

// The commit cache lets nodes decide transactions from the writes they
// saw commit instead of asking the owners (paper 004's Table 3): with it
// the same bank run asks other nodes for fewer values. Nodes skip the
// transactions that write none of their keys.
func TestCommitCacheSavesFetches(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		var on, off logorder.Stats
		var d *deployment
		for _, size := range []int{10000, 0} {
			cfg := config(3, 1)
			cfg.CacheSize = size
			d = deploy(t, seed, cfg)
			d.bankRun(t, 2, 0, time.Second)
			if size > 0 {
				on = d.stats()
			} else {
				off = d.stats()
			}
		}
		t.Logf("cache on: %+v; off: %+v", on, off)
		assert.Positive(t, on.CacheHits)
		assert.Zero(t, off.CacheHits)
		assert.Less(t, on.Fetches*3, off.Fetches*2, "the cache saves a third of the fetches at least")
		assert.Positive(t, off.Skipped)
		assert.Greater(t, off.Skipped, on.Skipped, "with the cache, nodes decide transactions whose reads they hold")
		return d.result()
	})
}

// A node restarted while transactions run does not stall them (paper
// 004's Fig. 2 stalled: its restarted node took reads it could not serve
// until it caught up): it answers reads as of tids it has not applied
// with ErrBehind after a short wait, and clients ask another owner.
func TestRestartDoesNotStall(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		cfg := config(5, 2)
		cfg.SnapshotEvery = 16
		d := deploy(t, seed, cfg)
		d.w.Run(time.Second) // a leader
		start := d.w.Now()
		var h *bank.History
		victim := -1
		d.w.After(time.Second, func() {
			l, _ := d.c.Leader(0)
			victim = (l + 1) % 5
			require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, victim)}))
		})
		d.w.After(2*time.Second, func() {
			require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, victim)}))
		})
		h = d.bankRun(t, 2, 0.2, 3*time.Second)
		per := func(from, to time.Duration) int {
			n := 0
			for _, o := range h.Ops() {
				if o.Complete >= from && o.Complete < to {
					n++
				}
			}
			return n
		}
		before, after := per(start, start+time.Second), per(start+2*time.Second, start+3*time.Second)
		t.Logf("operations in the second before the kill: %d; in the second after the restart: %d", before, after)
		assert.Greater(t, before, 50)
		assert.Greater(t, after*2, before, "no stall after the restart")
		return d.result()
	})
}

// A node asks another for the values it needs in one batch per set of
// owners, and only a node that decides a transaction asks: one that
// writes none of the transaction's keys skips it.
func TestFetchesBatchByOwners(t *testing.T) {
	cfg := config(3, 1)
	cfg.CacheSize = 0
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	a, b, mine := keyOn(1, cfg.Layout, "a"), keyOn(1, cfg.Layout, "b"), keyOn(0, cfg.Layout, "m")
	d.put(t, ck, a, "1")
	tx := d.begin(t, ck, ck.LastTid())
	d.get(t, tx, a)
	d.get(t, tx, b)
	require.NoError(t, tx.Put(mine, "x"))
	settled := func() bool {
		return d.server(0).Processed() >= ck.LastTid() && d.server(2).Processed() >= ck.LastTid()
	}
	require.True(t, d.w.RunUntil(settled, time.Second))
	before := []logorder.Stats{d.server(0).Stats(), d.server(2).Stats()}
	_, o := d.commit(t, tx)
	require.Equal(t, logorder.Applied, o)
	require.True(t, d.w.RunUntil(settled, time.Second))
	after := []logorder.Stats{d.server(0).Stats(), d.server(2).Stats()}
	assert.Equal(t, before[0].Fetches+1, after[0].Fetches, "node 0 asks node 1 for both values at once")
	assert.Equal(t, before[1].Decided, after[1].Decided, "node 2 keeps none of the keys")
	assert.Equal(t, before[1].Skipped+1, after[1].Skipped)
}
