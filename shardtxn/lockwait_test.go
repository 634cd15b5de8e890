package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/shardtxn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLockWait checks paper 000's lock wait (LockWaits): a transaction
// meeting a key that another has locked waits for it. Released in time,
// the lock is taken at once, not when the wait runs out; held past the
// wait (a random LockWait…2·LockWait), the transaction is refused.
func TestLockWait(t *testing.T) {
	t.Parallel()
	cfg := shardtxn.DefaultConfig()
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, 1, dep)
	a, b := d.keysOn()
	sa, sb := shardtxn.ShardOf(a, 3), shardtxn.ShardOf(b, 3)
	holder, waiter := services.ShardTxnClerk(d.c, "holder"), services.ShardTxnClerk(d.c, "waiter")
	require.True(t, d.run(t, holder, shardtxn.Get(a), shardtxn.Get(b)).Committed, "the clerks find the leaders")
	require.True(t, d.run(t, waiter, shardtxn.Get(a)).Committed)

	// The holder's transaction locks a at its prepare; the waiter's, on a
	// alone, meets the lock and goes on when the holder's commit frees it.
	var held *shardtxn.Outcome
	require.NoError(t, holder.Txn([]shardtxn.Op{shardtxn.Set(a, "holder"), shardtxn.Set(b, "holder")}, func(o shardtxn.Outcome) { held = &o }))
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 1 }, time.Second))
	start := d.w.Now()
	out := d.run(t, waiter, shardtxn.Set(a, "waiter"))
	took := d.w.Now() - start
	require.NotNil(t, held)
	assert.True(t, held.Committed, held.Reason)
	assert.True(t, out.Committed, out.Reason)
	assert.Less(t, took, cfg.LockWait, "woken by the release, before its wait runs out")
	assert.Equal(t, "waiter", d.run(t, waiter, shardtxn.Get(a)).Results[0].Value, "the waiter wrote after the holder")

	// With b's shard down, the holder's next transaction stays prepared
	// on a's shard: the waiter waits its lock wait out, and is refused.
	for i := range d.c.Replicas(1 + sb) {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(1+sb, i)}))
	}
	held = nil
	require.NoError(t, holder.Txn([]shardtxn.Op{shardtxn.Set(a, "again"), shardtxn.Set(b, "again")}, func(o shardtxn.Outcome) { held = &o }))
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 1 }, time.Second))
	start = d.w.Now()
	out = d.run(t, waiter, shardtxn.Set(a, "late"))
	took = d.w.Now() - start
	assert.False(t, out.Committed)
	assert.Equal(t, "lock wait timed out on "+a, out.Reason)
	assert.GreaterOrEqual(t, took, cfg.LockWait, "it waits at least LockWait")
	assert.Less(t, took, 2*cfg.LockWait+5*time.Millisecond, "and at most 2·LockWait, and a few log rounds")
	assert.Nil(t, held, "the holder still waits for b's shard")
}
