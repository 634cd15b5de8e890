package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnePhaseReadsAreNotStrictlySerializable stages the stale read paper
// 000 admits. A writer appends to two keys on two shards; its decision
// reaches the first shard and is held back from the second for a second.
// Then a reader reads both keys. With one-phase reads it sees the write on
// one shard and not on the other, and txncheck names the anomaly; with
// strict reads it waits for the second shard's lock, and the history is
// valid.
func TestOnePhaseReadsAreNotStrictlySerializable(t *testing.T) {
	t.Parallel()
	for _, onePhase := range []bool{true, false} {
		cfg := shardtxn.DefaultConfig()
		cfg.OnePhaseReads = onePhase
		r := readAcrossDecision(t, cfg)
		if !onePhase {
			assert.True(t, r.OK(), "strict reads: %v", r)
			continue
		}
		require.False(t, r.OK(), "one-phase reads: the checker must see the stale read")
		a, ok := r.First(txncheck.GSingle)
		require.True(t, ok, "one-phase reads show read skew (G-single): %v", r)
		t.Logf("one-phase reads:\n%v", a)
	}
}

func readAcrossDecision(t *testing.T, cfg shardtxn.Config) *txncheck.Result {
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, 1, dep)
	// List key 0 and list key kb, on another shard.
	kb := 1
	for shardtxn.ShardOf(txntest.ListKey(kb), 3) == shardtxn.ShardOf(txntest.ListKey(0), 3) {
		kb++
	}
	sa, sb := shardtxn.ShardOf(txntest.ListKey(0), 3), shardtxn.ShardOf(txntest.ListKey(kb), 3)
	shardB := map[*sim.Host]bool{}
	for i := range d.c.Replicas(1 + sb) {
		shardB[d.c.Hosts()[d.c.HostOf(1+sb, i)]] = true
	}
	if err := d.c.Monkey().SetDelayRule("decisions to shard B a second late", func(m labrpc.Message) time.Duration {
		if _, ok := m.Args.(*shardtxn.DecideArgs); ok && !m.IsReply && shardB[m.To] {
			return time.Second
		}
		return 0
	}); err != nil {
		t.Fatal(err)
	}
	clients := d.clerks(2)
	var h txncheck.History
	txn := func(c int, ops ...txncheck.Op) (done func() bool) {
		id := h.Invoke(c, ops, d.w.Now())
		ended := false
		clients[c].ListTxn(ops, func(o txncheck.Outcome, filled []txncheck.Op) {
			h.Complete(id, o, filled, d.w.Now())
			ended = true
		})
		return func() bool { return ended }
	}
	require.True(t, d.w.RunUntil(txn(0, txncheck.Append(0, 1), txncheck.Append(kb, 1)), 5*time.Second), "the writer commits")
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 0 }, 5*time.Second), "the first shard has the decision")
	require.Equal(t, 1, d.prepared(sb), "the second shard waits for it")
	require.True(t, d.w.RunUntil(txn(1, txncheck.Read(0), txncheck.Read(kb)), 5*time.Second), "the reader ends")
	r, err := txncheck.Check(&h, txncheck.StrictSerializable)
	require.NoError(t, err)
	return r
}
