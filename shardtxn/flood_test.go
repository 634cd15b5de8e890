package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneWayCutDoesNotFlood runs five clients' list transactions, then
// cuts every link from shard 0's leader to the coordinators for 3 s:
// the shard hears each prepare and decision but none of its answers
// arrive. The coordinators used to retry each call every 10 ms or so, for
// ever, prepares of decided transactions too, and each try was one more
// entry in the shard's log, one more series of them for each transaction
// decided: in the cut's third second shard 0's log grew by 5 912 entries
// where it grew by 798 in the second before the cut (paper 000's design;
// 3 559 against 1 101 under paper 003's with its replica manager), and
// the world's events were 2.3 (1.1) times as many, and growing. Now the
// calls back off and end with their transactions, the shard answers a
// repeated prepare or decision from its state, and a group that answers
// nothing gets no new decisions until it does: in the cut's third second
// the log grows by 26 entries (18) and the events are a twentieth of the
// second before the cut's (a twentieth), the clients waiting on shard 0.
// The test asserts that both are fewer than before the cut. When the cut
// heals, everything drains.
func TestOneWayCutDoesNotFlood(t *testing.T) {
	t.Parallel()
	variants := txntest.Variants()
	for _, v := range []txntest.Variant{variants[0], variants[len(variants)-1]} {
		t.Run(v.String(), func(t *testing.T) {
			cfg := config(v)
			cfg.RSM.MaxRaftState = 8 << 10
			if v.Conflicts == shardtxn.WriteIntents {
				cfg.Discovery = shardtxn.ReplicaManager // paper 003's whole design, where the flood was found
			}
			simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
				return oneWayCut(t, seed, cfg)
			})
		})
	}
}

func oneWayCut(t *testing.T, seed int64, cfg shardtxn.Config) simtest.Result {
	d := deploy(t, seed, txntest.Deployment{Shards: 3, Replicas: 3, Config: cfg})
	var h txncheck.History
	run := workload.StartLists(d.w, d.clerks(5), workload.ListSpec{Keys: 6, MaxOps: 4, Reads: 0.5, Think: 10 * time.Millisecond}, &h)
	d.w.Run(time.Second)
	leader, ok := d.c.Leader(1)
	require.True(t, ok, "shard 0 has a leader")
	shard := d.c.Replica(1, leader).(*shardtxn.ShardServer)
	// second returns the entries shard 0's leader applied and the
	// world's events in the next second.
	second := func() (entries int, events uint64) {
		e, ev := shard.Applied(), d.w.Events()
		d.w.Run(time.Second)
		return shard.Applied() - e, d.w.Events() - ev
	}
	entries, events := second()
	t.Logf("the second before the cut: %d log entries at shard 0, %d events", entries, events)
	for i := range d.c.Replicas(0) {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Cut, Host: d.c.HostOf(1, leader), To: d.c.HostOf(0, i)}))
	}
	d.w.Run(2 * time.Second)
	cutEntries, cutEvents := second()
	t.Logf("the cut's third second: %d log entries at shard 0, %d events", cutEntries, cutEvents)
	l, _ := d.c.Leader(1)
	require.Equal(t, leader, l, "shard 0's leader led throughout")
	assert.Less(t, cutEntries, entries, "the cut only slows the clients: shard 0's log grows slower than before")
	assert.Less(t, cutEvents, events, "and the world's events are fewer")

	require.NoError(t, d.c.Recover())
	run.Stop()
	require.True(t, d.w.RunUntil(run.Finished, 10*time.Second), "the clients' last transactions end")
	assert.True(t, d.w.RunUntil(d.drained, 10*time.Second), "locks and the table drain once the cut heals: %s", d.d.Undrained(d.c))
	res := result(t, d)
	res.Ops = h.Len()
	return res
}

// TestRepeatsNeedNoEntry sends shard 0's leader a prepare, its decision
// and a transaction on the shard alone, each twice, and the prepare again
// after the decision, as a coordinator or a clerk that hears no answer
// does: each repeat is answered as the first try was, without a new
// entry in the shard's log. A follower still answers ErrWrongLeader.
func TestRepeatsNeedNoEntry(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	ck := txntest.Clerk(d.c, "client")
	a, b := d.keysOn()
	require.True(t, d.run(t, ck, shardtxn.Set(a, "0"), shardtxn.Set(b, "0")).Committed, "the groups have leaders")
	require.True(t, d.w.RunUntil(d.drained, time.Second), "and the decision is delivered")
	s := 1 + shardtxn.ShardOf(a, 3)
	leader, ok := d.c.Leader(s)
	require.True(t, ok)
	shard := d.c.Replica(s, leader).(*shardtxn.ShardServer)
	ends := d.c.Ends(d.c.NewClient("raw"), s, nil)
	// twice sends args to replica i twice, and returns the replies and
	// how many entries each try added to the shard's log.
	twice := func(i int, method string, args any, newReply func() any) (replies []any, entries []int) {
		for range 2 {
			reply, ended, before := newReply(), false, shard.Applied()
			ends[i].Call(method, args, reply, func(bool) { ended = true })
			require.True(t, d.w.RunUntil(func() bool { return ended }, time.Second), "%s answered", method)
			replies, entries = append(replies, reply), append(entries, shard.Applied()-before)
		}
		return replies, entries
	}
	id := shardtxn.Txid{Client: 7, Seq: 1}
	prepare := &shardtxn.PrepareArgs{ID: id, Ops: []shardtxn.Op{shardtxn.Set(a, "1")}}
	newPrepare := func() any { return &shardtxn.PrepareReply{} }
	for _, c := range []struct {
		name   string
		method string
		args   any
		new    func() any
		want   any
		first  int
	}{
		{"prepare", "ShardServer.Prepare", prepare, newPrepare, &shardtxn.PrepareReply{Err: shardtxn.OK, Yes: true, Results: []shardtxn.Result{{}}}, 1},
		{"decision", "ShardServer.Decide", &shardtxn.DecideArgs{ID: id, Commit: true}, func() any { return &shardtxn.DecideReply{} }, &shardtxn.DecideReply{Err: shardtxn.OK}, 1},
		{"prepare after the decision", "ShardServer.Prepare", prepare, newPrepare, &shardtxn.PrepareReply{Err: shardtxn.OK, Reason: "decided already"}, 0},
		{"one-shard transaction", "ShardServer.Execute", &shardtxn.PrepareArgs{ID: shardtxn.Txid{Client: 8, Seq: 1}, Ops: []shardtxn.Op{shardtxn.Get(a)}}, newPrepare,
			&shardtxn.PrepareReply{Err: shardtxn.OK, Yes: true, Results: []shardtxn.Result{{Value: "1", Found: true}}}, 1},
	} {
		replies, entries := twice(leader, c.method, c.args, c.new)
		assert.Equal(t, []any{c.want, c.want}, replies, c.name)
		assert.Equal(t, []int{c.first, 0}, entries, "%s: entries added to the log by the first try and the repeat", c.name)
	}
	replies, _ := twice((leader+1)%3, "ShardServer.Prepare", prepare, newPrepare)
	assert.Equal(t, shardtxn.ErrWrongLeader, replies[1].(*shardtxn.PrepareReply).Err, "a follower answers nothing from its state")
	assert.Equal(t, "1", d.run(t, ck, shardtxn.Get(a)).Results[0].Value, "the transaction committed once")
}

// TestCleanupQuestionsBackOff cuts the coordinators' links to a shard's
// leader once a transaction is prepared there, under presumed commit: the
// coordinator commits it, and neither its decision nor its answers to the
// shard's cleanup, which asks about the transaction after CleanupAge,
// arrive. Each question is a read through the coordinator's log; asked
// again every 10 ms or so, they added about 100 entries a second to it.
// Now the question backs off, one series of tries for the transaction:
// its second second of tries adds at most 10 entries (a round of three
// replicas every 100–200 ms, one of them the leader). When the cut heals,
// the shard learns the commit.
func TestCleanupQuestionsBackOff(t *testing.T) {
	t.Parallel()
	cfg := shardtxn.DefaultConfig()
	cfg.Presumption = shardtxn.PresumedCommit
	d := deploy(t, 1, txntest.Deployment{Shards: 3, Replicas: 3, Config: discovered(cfg)})
	ck := txntest.Clerk(d.c, "client")
	a, b := d.keysOn()
	require.True(t, d.run(t, ck, shardtxn.Set(a, "0"), shardtxn.Set(b, "0")).Committed, "the groups have leaders")
	require.True(t, d.w.RunUntil(d.drained, time.Second))
	sa := shardtxn.ShardOf(a, 3)
	var out *shardtxn.Outcome
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "1"), shardtxn.Set(b, "1")}, func(o shardtxn.Outcome) { out = &o }))
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 1 }, time.Second), "prepared at shard %d", sa)
	leader, _ := d.c.Leader(1 + sa)
	for i := range d.c.Replicas(0) {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Cut, Host: d.c.HostOf(0, i), To: d.c.HostOf(1+sa, leader)}))
	}
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, time.Second), "the client hears the decision")
	require.True(t, out.Committed)
	coord, _, ok := d.coordLeader()
	require.True(t, ok)
	d.w.Run(cfg.CleanupAge + 2*cfg.Tick + time.Second) // the cleanup asks, and its tries back off
	before := coord.Applied()
	d.w.Run(time.Second)
	asked := coord.Applied() - before
	t.Logf("the coordinator's log grew by %d entries in the second second of the shard's questions", asked)
	assert.Positive(t, asked, "the shard asks on")
	assert.LessOrEqual(t, asked, 10)
	assert.Equal(t, 1, d.prepared(sa), "nothing reached the shard")

	require.NoError(t, d.c.Recover())
	assert.True(t, d.w.RunUntil(d.drained, time.Second), "the shard learns the commit once the cut heals: %s", d.d.Undrained(d.c))
}
