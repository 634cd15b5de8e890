package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLocalReadsAreNotLinearizable stages the stale read that paper 000's
// Get allows (Config.LocalReads), on pinned seed 1. Client A sets k and
// reads it from the shard's leader; then that leader's host is cut off
// from the other servers (the clients still reach every server). The
// others elect a new leader and client B sets k again. A reads k once
// more from the leader it knows: under LocalReads the old leader, which
// has not yet stepped down, answers with the value B overwrote, and
// porcupine rejects the history; through the log, A's Get cannot commit
// there, A tries the next replica, reads B's value, and the history is
// linearizable.
func TestLocalReadsAreNotLinearizable(t *testing.T) {
	t.Parallel()
	for _, local := range []bool{true, false} {
		cfg := shardtxn.DefaultConfig()
		cfg.LocalReads = local
		ok, read := readAfterPartition(t, cfg)
		if local {
			assert.Equal(t, "1", read, "the cut-off leader answers from its state")
			assert.False(t, ok, "porcupine must reject the stale read")
			continue
		}
		assert.Equal(t, "2", read, "through the log, the read sees B's Set")
		assert.True(t, ok, "through the log, the history is linearizable")
	}
}

// readAfterPartition runs the scenario above and returns porcupine's
// verdict and the value A's last Get read.
func readAfterPartition(t *testing.T, cfg shardtxn.Config) (linearizable bool, read string) {
	d := deploy(t, 1, txntest.Deployment{Shards: 1, Replicas: 3, Config: cfg})
	a, b := txntest.Clerk(d.c, "a"), txntest.Clerk(d.c, "b")
	require.NoError(t, b.SetTimeout(20*time.Millisecond)) // B finds the new leader soon after it is elected
	var h linearize.History
	op := func(c int, ck *shardtxn.Clerk, o shardtxn.Op) (done func() bool, value *string) {
		in := linearize.KVInput{Kind: linearize.Put, Key: o.Key, Value: o.Value}
		if o.Kind == shardtxn.OpGet {
			in = linearize.KVInput{Kind: linearize.Get, Key: o.Key}
		}
		id := h.Call(c, in, d.w.Now())
		ended, v := false, new(string)
		require.NoError(t, ck.Txn([]shardtxn.Op{o}, func(out shardtxn.Outcome) {
			res := linearize.KVOutput{Failed: !out.Committed}
			if out.Committed && o.Kind == shardtxn.OpGet {
				res.Value, *v = out.Results[0].Value, out.Results[0].Value
			}
			h.Return(id, res, d.w.Now())
			ended = true
		}))
		return func() bool { return ended }, v
	}
	const shard = 1 // the group of shard 0
	done, _ := op(0, a, shardtxn.Set("k", "1"))
	require.True(t, d.w.RunUntil(done, 5*time.Second), "A's Set commits")
	done, _ = op(0, a, shardtxn.Get("k"))
	require.True(t, d.w.RunUntil(done, 5*time.Second), "A's first Get ends")

	old, ok := d.c.Leader(shard)
	require.True(t, ok, "the shard has a leader")
	cutOff := d.c.HostOf(shard, old)
	var rest []int
	for i := range d.c.Hosts() {
		if i != cutOff {
			rest = append(rest, i)
		}
	}
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{{cutOff}, rest}}))
	require.True(t, d.w.RunUntil(func() bool {
		for i := range d.c.Replicas(shard) {
			if _, leads := d.c.Replica(shard, i).GetState(); leads && i != old {
				return true
			}
		}
		return false
	}, 5*time.Second), "the majority elects a new leader")
	done, _ = op(1, b, shardtxn.Set("k", "2"))
	require.True(t, d.w.RunUntil(done, 5*time.Second), "B's Set commits on the majority's side")
	d.w.Run(time.Millisecond) // A's Get is called strictly after B's Set returned
	_, stillLeads := d.c.Replica(shard, old).GetState()
	require.True(t, stillLeads, "on seed 1 the cut-off leader has not yet stepped down when A reads")
	done, value := op(0, a, shardtxn.Get("k"))
	d.w.Run(time.Second)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Heal}))
	require.True(t, d.w.RunUntil(done, 10*time.Second), "A's second Get ends")
	r, err := linearize.Check(linearize.KVModel(), h.Operations(), d.c.Log(), time.Minute, t.TempDir(), "shardtxn-local-reads")
	require.NoError(t, err)
	return r.OK(), *value
}

// TestRelay runs paper 000's path for simple operations: a clerk with no
// ends to the shards sends a Set and a Get to the coordinator leader,
// which under Relay passes each to its shard and puts nothing in its own
// log (under LocalReads the Get puts nothing in the shard's either);
// without Relay the coordinators run each through 2PC, an entry each at
// least. A cross-shard transaction still takes 2PC.
func TestRelay(t *testing.T) {
	t.Parallel()
	for _, relay := range []bool{true, false} {
		cfg := shardtxn.DefaultConfig()
		cfg.Relay, cfg.LocalReads = relay, true
		d := deploy(t, 1, standard(cfg))
		h := d.c.NewClient("client")
		ck, err := shardtxn.MakeClerk(h, d.c.Ends(h, 0, nil), nil)
		require.NoError(t, err)
		require.True(t, d.run(t, ck, shardtxn.Set("x", "1")).Committed, "warm up: a leader everywhere")
		coord, _ := d.c.Leader(0)
		s := 1 + shardtxn.ShardOf("a", 3)
		shard, _ := d.c.Leader(s)
		logs := func() (int, int) {
			return d.c.Replica(0, coord).(*shardtxn.CoordServer).Applied(), d.c.Replica(s, shard).(*shardtxn.ShardServer).Applied()
		}
		c0, s0 := logs()
		require.True(t, d.run(t, ck, shardtxn.Set("a", "1")).Committed)
		c1, s1 := logs()
		out := d.run(t, ck, shardtxn.Get("a"))
		require.True(t, out.Committed, out.Reason)
		assert.Equal(t, "1", out.Results[0].Value)
		c2, s2 := logs()
		if relay {
			assert.Equal(t, c0, c2, "relayed: nothing in the coordinator's log")
			assert.Equal(t, s0+1, s1, "the Set: one step of the shard's log")
			assert.Equal(t, s1, s2, "the Get: none, from the leader's state")
		} else {
			assert.Greater(t, c1, c0, "2PC: the coordinator's log holds the Set")
			assert.Greater(t, c2, c1, "and the Get")
		}
		b := "b"
		for shardtxn.ShardOf(b, 3) == shardtxn.ShardOf("a", 3) {
			b += "b"
		}
		c3, _ := logs()
		require.True(t, d.run(t, ck, shardtxn.Set("a", "2"), shardtxn.Set(b, "2")).Committed)
		c4, _ := logs()
		assert.Greater(t, c4, c3, "across shards: 2PC through the coordinator's log")
	}
}
