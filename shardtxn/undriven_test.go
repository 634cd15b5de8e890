package shardtxn_test

import (
	"slices"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim"
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
// preparing itself included: here one prepared on both its shards when
// the coordinator leader crashes and its client is cut off, under a new
// leader that skips recovery (the planted bug), so that nobody drives it.
// It is aborted at its timeout, and the shards release its locks.
func TestTimeoutNeedsNoDriver(t *testing.T) {
	t.Parallel()
	cfg := planted(t, "new coordinator leader skips recovery")
	s := newLockScene(t, cfg)
	d := s.d
	require.True(t, d.w.RunUntil(d.drained, time.Second), "the first decisions are delivered")
	start := d.w.Now()
	var held *shardtxn.Outcome
	s.hold(t, &held)
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(s.sb) == 1 }, time.Second), "both shards prepare")
	_, leader, ok := d.coordLeader()
	require.True(t, ok)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: leader}))
	i := slices.IndexFunc(d.w.Hosts(), func(h *sim.Host) bool { return h.Name() == "holder" })
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Isolate, Host: d.c.HostIndex(d.w.Hosts()[i])}))
	require.True(t, d.w.RunUntil(d.drained, cfg.TxnTimeout+time.Second), "the abort releases the locks, and the table forgets it")
	took := d.w.Now() - start
	assert.GreaterOrEqual(t, took, cfg.TxnTimeout, "not before the timeout")
	assert.Less(t, took, cfg.TxnTimeout+3*cfg.Tick, "within a few ticks of it")
	got := d.run(t, s.waiter, shardtxn.Get(s.a), shardtxn.Get(s.b))
	assert.Equal(t, []shardtxn.Result{{}, {}}, got.Results, "nothing was written")
	assert.Nil(t, held, "the holder, cut off, heard nothing")
}

// TestPlantedPrepareNotReplicated checks what the planted bug "prepare
// not replicated at the shard" does: the shard leader prepares in its own
// state alone, so its followers hold no locks for a transaction it has
// prepared (here one that waits for a shard that is down).
func TestPlantedPrepareNotReplicated(t *testing.T) {
	t.Parallel()
	s := newLockScene(t, planted(t, "prepare not replicated at the shard"))
	s.down(t)
	var held *shardtxn.Outcome
	s.hold(t, &held)
	s.d.w.Run(100 * time.Millisecond)
	leader, ok := s.d.c.Leader(1 + s.sa)
	require.True(t, ok)
	for i := range s.d.c.Replicas(1 + s.sa) {
		keys, prepared := s.d.c.Replica(1+s.sa, i).(*shardtxn.ShardServer).Locks()
		want := 0
		if i == leader {
			want = 1
		}
		assert.Equal(t, []int{want, want}, []int{keys, prepared}, "replica %d (the leader is %d): locked keys, prepared", i, leader)
	}
}
