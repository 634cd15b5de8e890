package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim/plant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planted returns the default configuration with the planted bug called
// name switched on.
func planted(t *testing.T, name string) shardtxn.Config {
	b, ok := plant.Named(shardtxn.PlantedBugs(), name)
	require.True(t, ok, "no planted bug %q", name)
	cfg := shardtxn.DefaultConfig()
	b.Plant(&cfg)
	return cfg
}

// TestTimeoutNeedsNoDriver checks that the coordinator leader's timeout
// aborts every transaction of its table TxnTimeout old, those it is not
// preparing itself included: here a transaction prepared on both its
// shards when the coordinator leader and the client crash, under a new
// leader that skips recovery (the planted bug), so that nobody drives
// it. It is aborted at its timeout, and the shards release its locks.
func TestTimeoutNeedsNoDriver(t *testing.T) {
	t.Parallel()
	cfg := planted(t, "new coordinator leader skips recovery")
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, 1, dep)
	a, b := d.keysOn()
	sa, sb := shardtxn.ShardOf(a, 3), shardtxn.ShardOf(b, 3)
	client := d.c.NewClient("client")
	ck := shardtxn.MakeClerk(client, d.c.Ends(client, 0, nil), nil)
	require.True(t, d.run(t, ck, shardtxn.Get(a), shardtxn.Get(b)).Committed, "the clerk finds the leader")
	require.True(t, d.w.RunUntil(d.drained, time.Second), "its decision is delivered")

	start := d.w.Now()
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "1"), shardtxn.Set(b, "1")}, func(shardtxn.Outcome) {}))
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 1 && d.prepared(sb) == 1 }, time.Second), "both shards prepare")
	_, leader, ok := d.coordLeader()
	require.True(t, ok)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: leader}))
	client.Kill()
	require.True(t, d.w.RunUntil(func() bool { _, _, ok := d.coordLeader(); return ok }, 5*time.Second), "a new leader")
	require.True(t, d.w.RunUntil(d.drained, cfg.TxnTimeout+time.Second), "the abort releases the locks, and the table forgets it")
	took := d.w.Now() - start
	assert.GreaterOrEqual(t, took, cfg.TxnTimeout, "not before the timeout")
	assert.Less(t, took, cfg.TxnTimeout+3*cfg.Tick, "within a few ticks of it")
	reader := d.c.NewClient("reader")
	got := d.run(t, shardtxn.MakeClerk(reader, d.c.Ends(reader, 0, nil), nil), shardtxn.Get(a), shardtxn.Get(b))
	assert.Equal(t, []shardtxn.Result{{}, {}}, got.Results, "nothing was written")
}

// TestPlantedPrepareNotReplicated checks what the planted bug "prepare
// not replicated at the shard" does: the shard leader prepares in its own
// state alone, so its followers hold no locks for a transaction it has
// prepared (here one that waits for a shard that is down).
func TestPlantedPrepareNotReplicated(t *testing.T) {
	t.Parallel()
	cfg := planted(t, "prepare not replicated at the shard")
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, 1, dep)
	a, b := d.keysOn()
	sa, sb := shardtxn.ShardOf(a, 3), shardtxn.ShardOf(b, 3)
	for i := range d.c.Replicas(1 + sb) {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(1+sb, i)}))
	}
	ck := services.ShardTxnClerk(d.c, "client")
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "1"), shardtxn.Set(b, "1")}, func(shardtxn.Outcome) {}))
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 1 }, time.Second), "the leader of a's shard prepares")
	d.w.Run(100 * time.Millisecond)
	leader, ok := d.c.Leader(1 + sa)
	require.True(t, ok)
	for i := range d.c.Replicas(1 + sa) {
		keys, prepared := d.c.Replica(1+sa, i).(*shardtxn.ShardServer).Locks()
		want := 0
		if i == leader {
			want = 1
		}
		assert.Equal(t, []int{want, want}, []int{keys, prepared}, "replica %d (the leader is %d): locked keys, prepared", i, leader)
	}
}
