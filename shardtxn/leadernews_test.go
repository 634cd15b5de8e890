package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A nemesis aimed at "the coordinator leader, right after it sends
// PREPARE" needs two things the servers and the network offer: leadership
// news (CoordServer.OnLeadership) to know which host leads, and a watcher
// (labrpc.Network.Watch) to see the PREPARE go, while a delay rule slows
// every decision at the same time. The leader is killed as its first
// PREPARE leaves; the transaction still ends, the next leader finishes
// it, and everything drains.
func TestKillCoordinatorLeaderAfterPrepare(t *testing.T) {
	dep := standard(shardtxn.DefaultConfig())
	dep.Shared = false
	d := deploy(t, 1, dep)
	leaderHost := -1
	var leaders []int // the hosts that took the lead, in order
	for i := range d.c.Replicas(0) {
		host := d.c.HostOf(0, i)
		d.c.Replica(0, i).(*shardtxn.CoordServer).OnLeadership(func(_ int, leading bool) {
			if leading {
				leaderHost, leaders = host, append(leaders, host)
			}
		})
	}
	require.NoError(t, d.c.Monkey().SetDelayRule("slow decisions", func(m labrpc.Message) time.Duration {
		if m.Method == "ShardServer.Decide" {
			return 5 * time.Millisecond
		}
		return 0
	}))
	ck := txntest.Clerk(d.c, "client")
	warm := d.freshKeys("warm")
	require.True(t, d.run(t, ck, shardtxn.Set(warm[0], "1"), shardtxn.Set(warm[1], "1")).Committed, "a leader, and a transaction to elect it")
	require.GreaterOrEqual(t, leaderHost, 0, "leadership news named the leader")

	killed := -1
	stop := d.c.Net().Watch(func(m labrpc.Message) {
		if killed < 0 && !m.IsReply && m.Method == "ShardServer.Prepare" && m.From != nil && m.From.ID() == d.c.Hosts()[leaderHost].ID() {
			killed = leaderHost
			d.w.After(0, func() { require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: killed})) })
		}
	})
	defer stop()
	keys := d.freshKeys("t")
	out := d.run(t, ck, shardtxn.Set(keys[0], "2"), shardtxn.Set(keys[1], "2"))
	require.GreaterOrEqual(t, killed, 0, "the watcher saw the leader's PREPARE")
	assert.Contains(t, d.c.Log().String(), "kill", "the kill is in the fault log")
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: killed}))
	require.True(t, d.w.RunUntil(d.drained, 30*time.Second), "locks and the table drain")
	got := d.read(t, ck, keys...)
	require.True(t, got.Committed)
	if out.Committed {
		assert.Equal(t, "2", got.Results[0].Value, "committed: both writes installed")
		assert.Equal(t, "2", got.Results[1].Value)
	}
	assert.Equal(t, got.Results[0].Found, got.Results[1].Found, "all or nothing")
	require.Len(t, leaders, 2, "news of the first leader and of its successor")
	assert.NotEqual(t, killed, leaders[1], "another replica took over")
}

// A shard's replicas tell of leadership too: killing the shard's leader
// brings news of its successor, and a nil function stops the news.
func TestShardLeadershipNews(t *testing.T) {
	dep := standard(shardtxn.DefaultConfig())
	dep.Shared = false
	d := deploy(t, 1, dep)
	ck := txntest.Clerk(d.c, "client")
	keys := d.freshKeys("k")
	require.True(t, d.run(t, ck, shardtxn.Set(keys[0], "1"), shardtxn.Set(keys[1], "1")).Committed)
	g := 1 + shardtxn.ShardOf(keys[0], dep.Shards)
	leader, ok := d.c.Leader(g)
	require.True(t, ok)
	var took []int
	for i := range d.c.Replicas(g) {
		d.c.Replica(g, i).(*shardtxn.ShardServer).OnLeadership(func(_ int, leading bool) {
			if leading {
				took = append(took, i)
			}
		})
	}
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(g, leader)}))
	require.True(t, d.run(t, ck, shardtxn.Set(keys[0], "2"), shardtxn.Set(keys[1], "2")).Committed, "the shard elects a new leader")
	now, ok := d.c.Leader(g)
	require.True(t, ok)
	assert.Equal(t, []int{now}, took, "news of the new leader")

	for i := range d.c.Replicas(g) {
		if s, ok := d.c.Replica(g, i).(*shardtxn.ShardServer); ok {
			s.OnLeadership(nil)
		}
	}
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(g, leader)}))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(g, now)}))
	require.True(t, d.run(t, ck, shardtxn.Set(keys[0], "3"), shardtxn.Set(keys[1], "3")).Committed, "another leader")
	assert.Equal(t, []int{now}, took, "no news once turned off")
}
