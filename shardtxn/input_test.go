package shardtxn_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadCalls makes each call of the public API with a bad argument: a
// nil or dead host, a nil persister, no ends or a nil one, no shard
// groups, a nil callback, an update of no keys or of one key twice, a
// timeout out of range. Each was a nil-pointer panic, a division by zero
// on the first transaction, a hang or a value taken silently; each
// returns an error naming it, and nothing is applied: the clerk goes on,
// and the keys keep their values.
func TestBadCalls(t *testing.T) {
	t.Parallel()
	cfg := shardtxn.DefaultConfig()
	d := deploy(t, 1, standard(cfg))
	ck := txntest.Clerk(d.c, "client")
	a, b := d.keysOn()
	require.True(t, d.run(t, ck, shardtxn.Set(a, "1"), shardtxn.Set(b, "2")).Committed)

	h := d.c.NewClient("h")
	coords, shard0 := d.c.Ends(h, 0, nil), d.c.Ends(h, 1, nil)
	shards := [][]*labrpc.ClientEnd{shard0, d.c.Ends(h, 2, nil), d.c.Ends(h, 3, nil)}
	dead := d.c.NewClient("dead")
	dead.Kill()
	never := func(shardtxn.Outcome) { t.Error("a refused call ended") }
	keep := func([]shardtxn.Result) ([]string, string) { return []string{"9"}, "" }
	id := "shardtxn: clerk " + strconv.FormatInt(ck.ID(), 10) + ": "
	startShard := func(host *testHost, coordinators []*labrpc.ClientEnd) error {
		_, err := shardtxn.StartShard(host.h, host.peers, 0, host.ps, 0, coordinators, nil, cfg)
		return err
	}
	startCoord := func(host *testHost, shards [][]*labrpc.ClientEnd) error {
		_, err := shardtxn.StartCoordinator(host.h, host.peers, 0, host.ps, shards, nil, cfg)
		return err
	}
	ok := &testHost{h, coords, h.Persister()}
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"MakeClerk, nil host", func() error { _, err := shardtxn.MakeClerk(nil, coords, shards); return err }, "shardtxn: MakeClerk: a nil host"},
		{"MakeClerk, dead host", func() error { _, err := shardtxn.MakeClerk(dead, coords, shards); return err }, "shardtxn: MakeClerk: host dead is dead"},
		{"MakeClerk, no coordinators", func() error { _, err := shardtxn.MakeClerk(h, nil, shards); return err }, "shardtxn: MakeClerk: no end to the coordinator group"},
		{"MakeClerk, nil coordinator", func() error {
			_, err := shardtxn.MakeClerk(h, []*labrpc.ClientEnd{coords[0], nil, coords[2]}, shards)
			return err
		}, "shardtxn: MakeClerk: the end to replica 1 of the coordinator group is nil"},
		{"MakeClerk, empty shard group", func() error {
			_, err := shardtxn.MakeClerk(h, coords, [][]*labrpc.ClientEnd{shard0, {}})
			return err
		}, "shardtxn: MakeClerk: no end to shard group 1"},
		{"MakeClerk, nil shard end", func() error {
			_, err := shardtxn.MakeClerk(h, coords, [][]*labrpc.ClientEnd{{nil}})
			return err
		}, "shardtxn: MakeClerk: the end to replica 0 of shard group 0 is nil"},
		{"StartCoordinator, nil host", func() error { return startCoord(&testHost{nil, coords, h.Persister()}, shards) }, "shardtxn: StartCoordinator: a nil host"},
		{"StartCoordinator, nil persister", func() error { return startCoord(&testHost{h, coords, nil}, shards) }, "shardtxn: StartCoordinator: a nil persister"},
		{"StartCoordinator, nil peer", func() error {
			return startCoord(&testHost{h, []*labrpc.ClientEnd{coords[0], coords[1], nil}, h.Persister()}, shards)
		}, "shardtxn: StartCoordinator: the end to replica 2 of its own group is nil"},
		{"StartCoordinator, no shards", func() error { return startCoord(ok, nil) }, "shardtxn: StartCoordinator: no shard groups"},
		{"StartCoordinator, empty shard group", func() error { return startCoord(ok, [][]*labrpc.ClientEnd{shard0, nil}) }, "shardtxn: StartCoordinator: no end to shard group 1"},
		{"StartShard, dead host", func() error { return startShard(&testHost{dead, coords, h.Persister()}, coords) }, "shardtxn: StartShard: host dead is dead"},
		{"StartShard, no peers", func() error { return startShard(&testHost{h, nil, h.Persister()}, coords) }, "shardtxn: StartShard: no end to its own group"},
		{"StartShard, nil coordinator", func() error { return startShard(ok, []*labrpc.ClientEnd{nil}) }, "shardtxn: StartShard: the end to replica 0 of the coordinator group is nil"},
		{"Txn, nil callback", func() error { return ck.Txn([]shardtxn.Op{shardtxn.Set(a, "9")}, nil) }, id + "Txn with a nil callback"},
		{"Add, nil callback", func() error { return ck.Add(a, 1, nil) }, id + "Add with a nil callback"},
		{"Xfer, nil callback", func() error { return ck.Xfer(a, b, 1, nil) }, id + "Xfer with a nil callback"},
		{"Update, nil callback", func() error { return ck.Update([]string{a}, keep, nil) }, id + "Update with a nil callback"},
		{"Update, nil next", func() error { return ck.Update([]string{a}, nil, never) }, id + "Update with a nil next"},
		{"Update, no keys", func() error { return ck.Update(nil, keep, never) }, "shardtxn: an update of no keys"},
		{"Update, a key twice", func() error { return ck.Update([]string{a, b, a}, keep, never) }, `shardtxn: an update of key "a" twice`},
		{"Discover, nil directory", func() error { return ck.Discover(nil) }, id + "Discover with a nil end to the directory"},
		{"SetTimeout, zero", func() error { return ck.SetTimeout(0) }, id + "timeout 0s must be positive"},
		{"SetTimeout, near MaxInt64", func() error { return ck.SetTimeout(math.MaxInt64) }, id + "timeout 2562047h47m16.854775807s is longer than a day (MaxSetting)"},
	} {
		assert.EqualError(t, c.call(), c.want, c.name)
	}
	assert.PanicsWithValue(t, `shardtxn: ShardOf("k", 0): the number of shards must be positive`, func() { shardtxn.ShardOf("k", 0) })

	more, err := shardtxn.MakeClerk(h, coords, shards)
	require.NoError(t, err, "a clerk on the host the bad calls named")
	require.NoError(t, more.SetTimeout(shardtxn.MaxSetting), "the longest timeout")
	got := d.run(t, more, shardtxn.Get(a), shardtxn.Get(b))
	assert.Equal(t, []string{"1", "2"}, []string{got.Results[0].Value, got.Results[1].Value}, "nothing was applied")
	assert.True(t, d.run(t, ck, shardtxn.Set(a, "3")).Committed, "the clerk the bad calls were made on goes on")
	assert.True(t, d.w.RunUntil(d.drained, time.Second), "nothing left locked or pending")
}

// A testHost is what a server starts on.
type testHost struct {
	h     *sim.Host
	peers []*labrpc.ClientEnd
	ps    *sim.Persister
}

// TestBadValues runs updates and transactions whose values cannot be
// kept: a sum past an int64 either way (Add and Xfer wrapped around), an
// update's next giving too few values or one too long (the clerk panicked
// inside the world), a list appended to past MaxValue (a value of any
// length could grow so). Each ends uncommitted with the reason, and
// nothing is written; a list of MaxValue bytes and a sum short of
// overflowing are kept.
func TestBadValues(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	ck := txntest.Clerk(d.c, "client")
	a, b := d.keysOn()
	top := strconv.FormatInt(math.MaxInt64, 10)
	long := strings.Repeat("x", shardtxn.MaxValue)
	require.True(t, d.run(t, ck, shardtxn.Set(a, top), shardtxn.Set(b, top), shardtxn.Set("l", long)).Committed)
	update := func(call func(done func(shardtxn.Outcome)) error) string {
		out := d.wait(t, "update", call)
		assert.False(t, out.Committed)
		return out.Reason
	}
	assert.Equal(t, a+" holds 9223372036854775807: adding 1 overflows an int64", update(func(done func(shardtxn.Outcome)) error { return ck.Add(a, 1, done) }))
	require.True(t, d.run(t, ck, shardtxn.Set("low", strconv.FormatInt(math.MinInt64, 10))).Committed)
	assert.Equal(t, "low holds -9223372036854775808: adding -1 overflows an int64", update(func(done func(shardtxn.Outcome)) error { return ck.Add("low", -1, done) }))
	assert.Equal(t, b+" holds 9223372036854775807: adding 5 overflows an int64", update(func(done func(shardtxn.Outcome)) error { return ck.Xfer(a, b, 5, done) }))
	assert.Equal(t, "shardtxn: Update's next gave 1 values for 2 keys", update(func(done func(shardtxn.Outcome)) error {
		return ck.Update([]string{a, b}, func([]shardtxn.Result) ([]string, string) { return []string{"1"}, "" }, done)
	}))
	assert.Equal(t, "shardtxn: cset "+a+": value of 65537 bytes (at most 65536)", update(func(done func(shardtxn.Outcome)) error {
		return ck.Update([]string{a}, func([]shardtxn.Result) ([]string, string) { return []string{long + "x"}, "" }, done)
	}))
	out := d.run(t, ck, shardtxn.Append(a, "1"), shardtxn.Append("l", "y"))
	assert.False(t, out.Committed)
	assert.Equal(t, "append l: the list would hold 65538 bytes (at most 65536)", out.Reason)
	out = d.run(t, ck, shardtxn.Append("l", "y"))
	assert.Equal(t, shardtxn.Outcome{Reason: "append l: the list would hold 65538 bytes (at most 65536)"}, out, "on one shard, too")

	assert.True(t, d.run(t, ck, shardtxn.Set("m", long[2:]), shardtxn.Append("m", "y")).Committed, "a list of MaxValue bytes")
	assert.True(t, d.wait(t, "add", func(done func(shardtxn.Outcome)) error { return ck.Add("low", 1, done) }).Committed, "a sum short of overflowing")
	assert.True(t, d.wait(t, "add", func(done func(shardtxn.Outcome)) error { return ck.Add(a, 0, done) }).Committed, "adding nothing to the largest")

	got := d.run(t, ck, shardtxn.Get(a), shardtxn.Get(b), shardtxn.Get("l"))
	require.True(t, got.Committed)
	assert.Equal(t, []string{top, top, long}, []string{got.Results[0].Value, got.Results[1].Value, got.Results[2].Value}, "nothing was written")
	assert.True(t, d.w.RunUntil(d.drained, time.Second), "nothing left locked or pending")
}

// TestClerkAfterItsHostDied uses a clerk whose host was killed, and then
// restarted: every call is refused, where the clerk used to go on as if
// its host were alive (its transactions ran and ended). A new clerk on
// the restarted host works.
func TestClerkAfterItsHostDied(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	ck := txntest.Clerk(d.c, "client")
	require.True(t, d.run(t, ck, shardtxn.Set("k", "1")).Committed)
	h := d.w.Hosts()[len(d.w.Hosts())-1]
	require.Equal(t, "client", h.Name())
	never := func(shardtxn.Outcome) { t.Error("a refused call ended") }
	want := "shardtxn: clerk " + strconv.FormatInt(ck.ID(), 10) + ": %s after its host client was killed; make a new clerk"
	for _, restart := range []bool{false, true} {
		if restart {
			require.True(t, h.Restart())
		} else {
			require.True(t, h.Kill())
		}
		for _, c := range []struct {
			what string
			call func() error
		}{
			{"Txn", func() error { return ck.Txn([]shardtxn.Op{shardtxn.Set("k", "2")}, never) }},
			{"Add", func() error { return ck.Add("k", 1, never) }},
			{"Update", func() error { return ck.Update([]string{"k"}, nil, never) }},
			{"SetTimeout", func() error { return ck.SetTimeout(time.Second) }},
			{"Discover", func() error { return ck.Discover(nil) }},
		} {
			assert.EqualError(t, c.call(), fmt.Sprintf(want, c.what))
		}
	}
	d.w.Run(time.Second)
	again, err := shardtxn.MakeClerk(h, d.c.Ends(h, 0, nil), nil)
	require.NoError(t, err)
	got := d.run(t, again, shardtxn.Get("k"))
	assert.Equal(t, "1", got.Results[0].Value, "nothing the dead clerk was asked was applied")
}

// TestBadRequests sends the servers raw requests a clerk or a
// coordinator would not: a transaction numbered 0 (the zero Txid stands
// for no transaction in a shard's lock table), a prepare with a bad op (a
// raw prepare reading the empty key took its lock and held it for ever:
// no coordinator knew of the transaction), a decision or a question about
// the zero Txid. Each is answered ErrBadRequest at once, where each went
// through a log, and nothing is applied.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	ck := txntest.Clerk(d.c, "client")
	a, b := d.keysOn()
	require.True(t, d.run(t, ck, shardtxn.Set("k", "1"), shardtxn.Set(a, "1"), shardtxn.Set(b, "1")).Committed, "the groups have leaders")
	h := d.c.NewClient("raw")
	coord, ok := d.c.Leader(0)
	require.True(t, ok)
	s := shardtxn.ShardOf("k", 3)
	shard, ok := d.c.Leader(1 + s)
	require.True(t, ok)
	call := func(g, i int, method string, args, reply any) {
		t.Helper()
		ended := false
		d.c.Ends(h, g, nil)[i].Call(method, args, reply, func(bool) { ended = true })
		require.True(t, d.w.RunUntil(func() bool { return ended }, time.Second), "%s answered", method)
	}
	zero := "shardtxn: transaction 0.0: Seq 0 is below 1 and names no transaction"
	set := []shardtxn.Op{shardtxn.Set("k", "bad")}

	var txn shardtxn.TxnReply
	call(0, coord, "CoordServer.Txn", &shardtxn.TxnArgs{ID: shardtxn.Txid{Client: 7}, Ops: set}, &txn)
	assert.Equal(t, shardtxn.TxnReply{Err: shardtxn.ErrBadRequest, Reason: "shardtxn: transaction 7.0: Seq 0 is below 1 and names no transaction"}, txn)
	for _, args := range []*shardtxn.PrepareArgs{{Ops: set}, {ID: shardtxn.Txid{Client: 7, Seq: 1}, Ops: []shardtxn.Op{shardtxn.Get("")}}} {
		for _, method := range []string{"ShardServer.Prepare", "ShardServer.Execute"} {
			var reply shardtxn.PrepareReply
			call(1+s, shard, method, args, &reply)
			assert.Equal(t, shardtxn.ErrBadRequest, reply.Err, "%s %+v", method, args)
			assert.Contains(t, []string{zero, "shardtxn: get with an empty key"}, reply.Reason)
		}
	}
	var decide shardtxn.DecideReply
	call(1+s, shard, "ShardServer.Decide", &shardtxn.DecideArgs{Commit: true}, &decide)
	assert.Equal(t, shardtxn.ErrBadRequest, decide.Err)
	var status shardtxn.StatusReply
	call(0, coord, "CoordServer.Status", &shardtxn.StatusArgs{}, &status)
	assert.Equal(t, shardtxn.StatusReply{Err: shardtxn.ErrBadRequest}, status)

	keys, prepared := d.c.Replica(1+s, shard).(*shardtxn.ShardServer).Locks()
	assert.Equal(t, [2]int{0, 0}, [2]int{keys, prepared}, "no lock taken")
	got := d.run(t, ck, shardtxn.Get("k"))
	assert.Equal(t, "1", got.Results[0].Value, "nothing was applied")
}
