package logorder_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node restarted behind by more than its link sends in an election
// timeout catches up when the log's Raft knows the link's bandwidth, which
// bounds the leader's batches to it: unbounded (Raft's 1 MiB batches),
// the leader sends the whole gap in one message, its heartbeats to the
// other node wait behind it, that node elects itself, sends the gap
// again and is deposed in turn, and the restarted node never takes the
// gap from a leader still in office (swarm-logorder's seeds 60, 70 and
// 497).
func TestSlowLinkCatchUp(t *testing.T) {
	const bandwidth = 250_000 // bytes a second
	for _, known := range []bool{false, true} {
		cfg := config(3, 3)
		if known {
			cfg.RSM.Raft.Bandwidth = bandwidth
		}
		d := deploy(t, 1, cfg)
		p := labrpc.DefaultParams()
		p.Bandwidth = bandwidth
		require.NoError(t, d.c.Net().SetParams(p))
		ck := d.clerk()
		d.put(t, ck, "a", "0")
		leader, ok := d.c.Leader(0)
		require.True(t, ok)
		behind := (leader + 1) % 3
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, behind)}))
		value := strings.Repeat("x", 2000)
		var last int
		for i := range 100 { // 200 KB: 0.8 s of the link, past ElectionMax
			last = d.put(t, ck, "a", fmt.Sprint(i, value))
		}
		term, _ := d.server(leader).GetState()
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, behind)}))
		caught := d.w.RunUntil(func() bool { return d.server(behind).Processed() >= last }, 10*time.Second)
		now, _ := d.server(leader).GetState()
		if !known {
			assert.False(t, caught, "unbounded batches: the node never catches up (the test's premise)")
			assert.Greater(t, now, term, "the leader lost its term")
			continue
		}
		assert.True(t, caught, "the node caught up: it is at tid %d of %d", d.server(behind).Processed(), last)
		assert.Equal(t, term, now, "the leader kept its term")
		assert.Empty(t, d.disagreement())
	}
}

// A commit retried while its entry is in the log but not yet applied (a
// clerk's commit that takes longer than its timeout) waits on that entry
// rather than logging the transaction again: on a slow link every entry
// logged again is replicated again, which slowed the commits further
// until the retries were most of what the log carried (swarm-logorder's
// seed 70).
func TestRetriedCommitLoggedOnce(t *testing.T) {
	d := deploy(t, 1, config(3, 3))
	ck := d.clerk()
	d.put(t, ck, "a", "1")
	leader, ok := d.c.Leader(0)
	require.True(t, ok)
	for _, f := range []int{1, 2} {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Isolate, Host: d.c.HostOf(0, (leader+f)%3)}))
	}
	r := d.raw()
	args := &logorder.CommitArgs{Session: rsm.Session{Client: 7, Seq: 1}, Txn: logorder.Txn{Snapshot: ck.LastTid(), Writes: []logorder.Write{{Key: "a", Value: "2"}}}}
	replies := make([]logorder.CommitReply, 3)
	answered := 0
	for i := range replies {
		r.ends[leader].Call("Server.Commit", args, &replies[i], func(ok bool) {
			require.True(t, ok)
			answered++
		})
		d.w.Run(50 * time.Millisecond) // the followers cannot log it, nor elect another leader so soon
	}
	require.Zero(t, answered, "no majority, no answer")
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Heal}))
	require.True(t, d.w.RunUntil(func() bool { return answered == len(replies) }, 5*time.Second), "every try answered")
	d.w.Run(time.Second)
	for _, reply := range replies {
		assert.Equal(t, replies[0], reply, "one tid and outcome for every try")
	}
	assert.Equal(t, logorder.Applied, replies[0].Outcome, "%+v", replies)
	assert.Equal(t, replies[0].Tid, d.server(leader).Processed(), "the log holds the transaction once: nothing after it")
}
