package logorder_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad input gets a clear error naming the bad value, and nothing is
// applied: an empty transaction, a key over the size limit, a min tid or
// a snapshot tid from the future, a read of a key a node does not keep.
func TestBadInput(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		d := deploy(t, seed, config(3, 1))
		ck := d.clerk()
		key := keyOn(1, d.d.Config.Layout, "x")
		tid := d.put(t, ck, key, "v")

		tx := d.begin(t, ck, ck.LastTid())
		var err error
		tx.Commit(func(_ int, _ logorder.Outcome, e error) { err = e })
		assert.EqualError(t, err, "logorder: an empty transaction")
		assert.ErrorIs(t, err, logorder.ErrRejected)
		long := strings.Repeat("k", logorder.MaxKey+1)
		assert.ErrorContains(t, tx.Put(long, "v"), "of 128 bytes (at most 127)")
		assert.ErrorContains(t, tx.Get(long, func(string, bool, error) { t.Error("no answer to a bad key") }), "at most 127")
		assert.ErrorContains(t, tx.Put("k", strings.Repeat("v", logorder.MaxValue+1)), "value of 65537 bytes")
		assert.NoError(t, tx.Put("k", strings.Repeat("v", logorder.MaxValue)), "a value of the largest size")

		for _, c := range []struct {
			min  int
			want string
		}{{-1, "logorder: min tid -1 is negative"}, {tid + 100, "is in the future: the log's newest tid is"}} {
			ended, want := false, c.want
			ck.Begin(c.min, func(tx *logorder.Tx, err error) {
				assert.Nil(t, tx)
				assert.ErrorContains(t, err, want)
				ended = true
			})
			d.runUntil(t, "a bad begin", &ended)
		}

		// A raw commit at a snapshot from the future is logged, then
		// rejected by every node alike: nothing is applied.
		leader, ok := d.c.Leader(0)
		require.True(t, ok)
		h := d.c.NewClient("raw")
		ends := d.c.Ends(h, 0, nil)
		var reply logorder.CommitReply
		ended := false
		args := &logorder.CommitArgs{Session: rsm.Session{Client: 99, Seq: 1}, Txn: logorder.Txn{Snapshot: tid + 100, Writes: []logorder.Write{{Key: key, Value: "future"}}}}
		ends[leader].Call("Server.Commit", args, &reply, func(bool) { ended = true })
		d.runUntil(t, "a commit from the future", &ended)
		assert.Equal(t, logorder.ErrBadRequest, reply.Err)
		assert.Contains(t, reply.Reason, "is not before the transaction's tid")
		d.w.Run(100 * time.Millisecond)
		v, _ := d.get(t, d.begin(t, ck, reply.Tid), key)
		assert.Equal(t, "v", v, "nothing applied")

		var get logorder.GetReply
		ended = false
		ends[0].Call("Server.Get", &logorder.GetArgs{Tid: 1, Keys: []string{key}}, &get, func(bool) { ended = true })
		d.runUntil(t, "a read of another node's key", &ended)
		assert.Equal(t, logorder.ErrBadRequest, get.Err)
		assert.Contains(t, get.Reason, "node 0 does not keep key")
		var most []string
		for i := range logorder.MaxKeys {
			most = append(most, fmt.Sprintf("%s%d", key, i))
		}
		ended = false
		ends[1].Call("Server.Get", &logorder.GetArgs{Tid: 1, Keys: most}, &get, func(bool) { ended = true })
		d.runUntil(t, "a read of the most keys", &ended)
		assert.Equal(t, logorder.OK, get.Err, get.Reason)
		assert.Len(t, get.Values, logorder.MaxKeys)
		for _, args := range []*logorder.GetArgs{{Tid: -1, Keys: []string{key}}, {Tid: 1}, {Tid: 1, Keys: []string{long}}, {Tid: 1, Keys: append(most, key)}} {
			ended = false
			get = logorder.GetReply{}
			ends[1].Call("Server.Get", args, &get, func(bool) { ended = true })
			d.runUntil(t, "a bad read", &ended)
			assert.Equal(t, logorder.ErrBadRequest, get.Err, "%+v", args)
		}
		assert.Empty(t, d.disagreement())
		return d.result()
	})
}

func TestStartAndClerkBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	cfg := config(3, 1)
	_, err := logorder.Start(h, make([]*labrpc.ClientEnd, 2), 0, h.Persister(), h.PersisterNamed("disk"), cfg)
	assert.EqualError(t, err, "logorder: 2 peers for a layout of 3 nodes")
	cfg.CacheSize = -1
	_, err = logorder.Start(h, make([]*labrpc.ClientEnd, 3), 0, h.Persister(), h.PersisterNamed("disk"), cfg)
	assert.EqualError(t, err, "logorder: CacheSize -1 is negative")
	h.PersisterNamed("bad").Save(nil, []byte{5, 1})
	net := labrpc.MakeNetwork(w)
	peers := []*labrpc.ClientEnd{net.MakeEnd("0", h), net.MakeEnd("1", h), net.MakeEnd("2", h)}
	_, err = logorder.Start(h, peers, 0, h.Persister(), h.PersisterNamed("bad"), config(3, 1))
	assert.ErrorContains(t, err, "logorder: node 0: bad snapshot")
	assert.Zero(t, h.Persister().SnapshotSize(), "the log's persister is as it was")
	_, err = logorder.MakeClerk(h, make([]*labrpc.ClientEnd, 2), cfg.Layout)
	assert.EqualError(t, err, "logorder: a clerk with 2 servers for a layout of 3 nodes")
	_, err = logorder.MakeClerk(h, make([]*labrpc.ClientEnd, 2), logorder.Layout{Nodes: 2, Replicas: 3, Ranges: 1})
	assert.ErrorContains(t, err, "replication factor 3")
}

// The public API names every bad argument at the call, and applies
// nothing: nil hosts, ends, persisters and callbacks, settings that would
// overflow the virtual clock, a transaction used after its Commit, and a
// clerk whose host was killed.
func TestAPIBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	cfg := config(3, 1)
	ends := make([]*labrpc.ClientEnd, 3)
	start := func(host *sim.Host, ps, disk *sim.Persister) error {
		_, err := logorder.Start(host, ends, 0, ps, disk, cfg)
		return err
	}
	assert.EqualError(t, start(nil, h.Persister(), h.PersisterNamed("d")), "logorder: Start: a nil host")
	assert.EqualError(t, start(h, nil, h.PersisterNamed("d")), "logorder: Start: a nil persister")
	assert.EqualError(t, start(h, h.Persister(), nil), "logorder: Start: a nil disk")
	assert.EqualError(t, start(h, h.Persister(), h.PersisterNamed("d")), "logorder: Start: the end to node 0 is nil")
	_, err := logorder.MakeClerk(nil, ends, cfg.Layout)
	assert.EqualError(t, err, "logorder: MakeClerk: a nil host")
	_, err = logorder.MakeClerk(h, ends, cfg.Layout)
	assert.EqualError(t, err, "logorder: MakeClerk: the end to node 0 is nil")
	dead := w.NewHost("dead")
	dead.Kill()
	_, err = logorder.MakeClerk(dead, ends, cfg.Layout)
	assert.EqualError(t, err, "logorder: MakeClerk: host dead is dead")
	for _, c := range []struct {
		set  func(*logorder.Config)
		want string
	}{
		{func(c *logorder.Config) { c.ReadWait = logorder.MaxSetting + 1 }, "logorder: ReadWait 24h0m0.000000001s is longer than a day (MaxSetting)"},
		{func(c *logorder.Config) { c.RPCTimeout = 1<<63 - 1 }, "logorder: RPCTimeout 2562047h47m16.854775807s is longer than a day (MaxSetting)"},
	} {
		bad := cfg
		c.set(&bad)
		assert.EqualError(t, bad.Validate(), c.want)
	}
	edge := cfg
	edge.ReadWait, edge.RPCTimeout = logorder.MaxSetting, logorder.MaxSetting
	assert.NoError(t, edge.Validate(), "a day is allowed")

	d := deploy(t, 1, cfg)
	ck := d.clerk()
	d.put(t, ck, "a", "1")
	assert.PanicsWithValue(t, "logorder: Begin with a nil callback", func() { ck.Begin(0, nil) })
	assert.PanicsWithValue(t, "logorder: clerk timeout 24h0m0.000000001s is longer than a day (MaxSetting)", func() { ck.SetTimeout(logorder.MaxSetting + 1) })
	assert.NotPanics(t, func() { ck.SetTimeout(logorder.MaxSetting) }, "a day is allowed")
	ck.SetTimeout(300 * time.Millisecond)
	tx := d.begin(t, ck, ck.LastTid())
	assert.EqualError(t, tx.Get("a", nil), "logorder: Get a with a nil callback")
	assert.PanicsWithValue(t, "logorder: Commit with a nil callback", func() { tx.Commit(nil) })
	require.NoError(t, tx.Put("a", "2"))
	d.commit(t, tx)
	var again error
	tx.Commit(func(_ int, _ logorder.Outcome, err error) { again = err })
	assert.ErrorIs(t, again, logorder.ErrRejected, "a second Commit")
	assert.EqualError(t, again, fmt.Sprintf("logorder: Commit on a transaction at snapshot %d that was committed already", tx.Snapshot()))
	assert.ErrorContains(t, tx.Put("b", "x"), "Put on a transaction at snapshot")
	assert.ErrorContains(t, tx.Get("a", func(string, bool, error) { t.Error("answered") }), "Get on a transaction at snapshot")
	v, _ := d.get(t, d.begin(t, ck, ck.LastTid()), "a")
	assert.Equal(t, "2", v, "committed once")

	late := d.clerk()
	open := d.begin(t, late, 0)
	var host *sim.Host
	for _, h := range d.w.Hosts() {
		if h.Name() == fmt.Sprintf("client%d", d.clients) {
			host = h
		}
	}
	require.NotNil(t, host, "the clerk's host")
	host.Kill()
	host.Restart()
	var begun error
	late.Begin(0, func(_ *logorder.Tx, err error) { begun = err })
	assert.EqualError(t, begun, "logorder: a clerk on host "+host.Name()+", which was killed since; make a new clerk")
	assert.ErrorContains(t, open.Put("a", "3"), "which was killed since")
}
