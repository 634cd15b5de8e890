package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
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
	s := newLockScene(t, cfg)
	var held *shardtxn.Outcome
	s.hold(t, &held)
	out, took := s.wait(t)
	require.NotNil(t, held, "the holder's commit frees the lock")
	assert.True(t, held.Committed, held.Reason)
	assert.True(t, out.Committed, out.Reason)
	assert.Less(t, took, cfg.LockWait, "woken by the release, before its wait runs out")
	assert.Equal(t, "waiter", s.d.run(t, s.waiter, shardtxn.Get(s.a)).Results[0].Value, "the waiter wrote after the holder")

	s.down(t)
	s.hold(t, &held)
	out, took = s.wait(t)
	assert.Nil(t, held, "the holder waits for the shard that is down")
	assert.False(t, out.Committed)
	assert.Equal(t, "lock wait timed out on "+s.a, out.Reason)
	assert.GreaterOrEqual(t, took, cfg.LockWait, "it waits at least LockWait")
	assert.Less(t, took, 2*cfg.LockWait+5*time.Millisecond, "and at most 2·LockWait, and a few log rounds")
}

// TestPlantedFixedLockWait checks what the planted bug "fixed instead of
// randomized lock waits" does: a transaction meeting a lock held past its
// wait is refused after exactly LockWait (and a few log rounds).
func TestPlantedFixedLockWait(t *testing.T) {
	t.Parallel()
	cfg := planted(t, "fixed instead of randomized lock waits")
	s := newLockScene(t, cfg)
	s.down(t)
	var held *shardtxn.Outcome
	s.hold(t, &held)
	out, took := s.wait(t)
	assert.Equal(t, "lock wait timed out on "+s.a, out.Reason)
	assert.GreaterOrEqual(t, took, cfg.LockWait)
	assert.Less(t, took, cfg.LockWait+5*time.Millisecond)
}

// A lockScene has a waiter's transaction on key a alone meet a's lock,
// taken by a holder's transaction on a and b, which are on two shards:
// sa and sb.
type lockScene struct {
	d              *deployment
	a, b           string
	sa, sb         int
	holder, waiter *shardtxn.Clerk
}

func newLockScene(t *testing.T, cfg shardtxn.Config) *lockScene {
	dep := standard(cfg)
	dep.Shared = false
	s := &lockScene{d: deploy(t, 1, dep)}
	s.a, s.b = s.d.keysOn()
	s.sa, s.sb = shardtxn.ShardOf(s.a, 3), shardtxn.ShardOf(s.b, 3)
	s.holder, s.waiter = txntest.Clerk(s.d.c, "holder"), txntest.Clerk(s.d.c, "waiter")
	require.True(t, s.d.run(t, s.holder, shardtxn.Get(s.a), shardtxn.Get(s.b)).Committed, "the clerks find the leaders")
	require.True(t, s.d.run(t, s.waiter, shardtxn.Get(s.a)).Committed)
	return s
}

// down kills every replica of b's shard: the holder's next transaction
// stays prepared on a's shard, holding a's lock.
func (s *lockScene) down(t *testing.T) {
	for i := range s.d.c.Replicas(1 + s.sb) {
		require.NoError(t, s.d.c.Apply(fault.Fault{Kind: fault.Kill, Host: s.d.c.HostOf(1+s.sb, i)}))
	}
}

// hold starts the holder's transaction, which sets *held to its outcome
// when it ends, and runs until a's shard has prepared it.
func (s *lockScene) hold(t *testing.T, held **shardtxn.Outcome) {
	*held = nil
	require.NoError(t, s.holder.Txn([]shardtxn.Op{shardtxn.Set(s.a, "holder"), shardtxn.Set(s.b, "holder")}, func(o shardtxn.Outcome) { *held = &o }))
	require.True(t, s.d.w.RunUntil(func() bool { return s.d.prepared(s.sa) == 1 }, time.Second), "a's shard prepares the holder's transaction")
}

// wait runs the waiter's transaction and returns how it ended and how
// long it took.
func (s *lockScene) wait(t *testing.T) (shardtxn.Outcome, time.Duration) {
	start := s.d.w.Now()
	out := s.d.run(t, s.waiter, shardtxn.Set(s.a, "waiter"))
	return out, s.d.w.Now() - start
}
