package rsm_test

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/rsm/wire"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/plant"
)

// counter is a state machine holding one number: a command adds to it
// and returns the new total; the command 0 reads it.
type counter struct {
	total   int64
	applied *int // how many commands it applied, across restarts
}

func (c *counter) Apply(cmd any) any {
	if n := cmd.(int64); n != 0 {
		*c.applied++
		c.total += n
	}
	return c.total
}

func (c *counter) Snapshot() []byte { return binary.AppendVarint(nil, c.total) }

func (c *counter) Restore(b []byte) error {
	if len(b) == 0 {
		c.total = 0
		return nil
	}
	d := wire.NewDecoder(b)
	c.total = d.Varint()
	return d.Done()
}

// codec encodes commands and results, both int64.
type codec struct{}

func (codec) AppendCommand(b []byte, cmd any) ([]byte, error) {
	return binary.AppendVarint(b, cmd.(int64)), nil
}
func (codec) DecodeCommand(b []byte) (any, error) { return decode(b) }
func (codec) AppendResult(b []byte, r any) ([]byte, error) {
	return binary.AppendVarint(b, r.(int64)), nil
}
func (codec) DecodeResult(b []byte) (any, error) { return decode(b) }

func decode(b []byte) (any, error) {
	d := wire.NewDecoder(b)
	v := d.Varint()
	return v, d.Done()
}

// replica adapts an rsm.Server to the harness.
type replica struct{ *rsm.Server }

func (r replica) GetState() (int, bool) { return r.Raft().GetState() }

// world is three servers of the counter on a fresh world.
type world struct {
	w       *sim.World
	c       *cluster.Cluster
	applied []int
	calls   int // requests the servers' Counter services received
}

// Counter is the counter's RPC service, for the clerk's tests.
type Counter struct {
	s     *rsm.Server
	calls *int
}

// AddArgs asks to add N, in a session.
type AddArgs struct {
	Session rsm.Session
	N       int64
}

// AddReply is the new total, unless the server could not tell.
type AddReply struct {
	Wrong bool
	Total int64
}

func (c Counter) Add(args *AddArgs, reply *AddReply, d *labrpc.Deferred) {
	*c.calls++
	c.s.Submit(args.Session, args.N, func(r any, ok bool) {
		reply.Wrong = !ok
		if ok {
			reply.Total = r.(int64)
		}
		d.Reply()
	})
}

func newWorld(t *testing.T, cfg rsm.Config) *world { return newWorldOf(t, cfg, false) }

// newWorldOf is newWorld, with a directory where the servers announce
// their leadership if directory is set.
func newWorldOf(t *testing.T, cfg rsm.Config, directory bool) *world {
	w := &world{w: sim.NewWorld(1), applied: make([]int, 3)}
	cc := cluster.Config{Groups: []cluster.Group{{Name: "n", Replicas: 3,
		Factory: func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
			host, peers, me, ps := n.Host, n.Peers, n.Me, n.Persister
			s, err := rsm.MakeServer(host, peers, me, ps, &counter{applied: &w.applied[me]}, codec{}, cfg)
			if err != nil {
				return nil, nil, err
			}
			if directory {
				s.Announce(rsm.Listing{Dir: n.Directory(), Group: n.Group})
			}
			return replica{s}, []*labrpc.Service{raftapi.ServiceOf(s.Raft()), labrpc.MakeService(Counter{s, &w.calls})}, nil
		}}}}
	if directory {
		cc.Directory = rsm.NewDirectoryService
	}
	c, err := cluster.New(w.w, cc)
	require.NoError(t, err)
	w.c = c
	return w
}

func (w *world) server(i int) *rsm.Server { return w.c.Replica(0, i).(replica).Server }

// leader waits for a leader that has committed in its term.
func (w *world) leader(t *testing.T) int {
	t.Helper()
	var l int
	require.True(t, w.w.RunUntil(func() bool {
		var ok bool
		l, ok = w.c.Leader(0)
		return ok
	}, 5*time.Second), "no leader")
	return l
}

// outcome is what a Done received.
type outcome struct {
	result any
	ok     bool
	called int
}

func (o *outcome) done(r any, ok bool) { o.result, o.ok, o.called = r, ok, o.called+1 }

// wait runs the world until o is called, at most limit.
func (w *world) wait(t *testing.T, o *outcome, limit time.Duration) {
	t.Helper()
	require.True(t, w.w.RunUntil(func() bool { return o.called > 0 }, limit), "no outcome within %v", limit)
}

func TestSubmitAppliesOnceAndAnswersRetries(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	s := w.server(l)
	sess := rsm.Session{Client: 7, Seq: 1}
	var first, retry, again outcome
	s.Submit(sess, int64(5), first.done)
	w.wait(t, &first, time.Second)
	assert.Equal(t, outcome{result: int64(5), ok: true, called: 1}, first)
	s.Submit(sess, int64(5), retry.done)
	assert.Equal(t, outcome{result: int64(5), ok: true, called: 1}, retry, "a retry of an applied request is answered at once")
	s.Submit(rsm.Session{Client: 7, Seq: 2}, int64(1), again.done)
	w.wait(t, &again, time.Second)
	assert.Equal(t, int64(6), again.result)
	w.w.Run(100 * time.Millisecond)
	assert.Equal(t, []int{2, 2, 2}, w.applied, "each request applied once on every server")
	for i := range 3 {
		assert.Zero(t, w.c.Persister(0, i).SnapshotSize(), "server %d: no snapshots by default", i)
	}

	var follower outcome
	w.server((l+1)%3).Submit(rsm.Session{Client: 8, Seq: 1}, int64(1), follower.done)
	assert.Equal(t, outcome{called: 1}, follower, "a follower says at once that it cannot")
}

func TestRetryWaitsForTheEntryLoggedFirst(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	size := w.c.Persister(0, l).RaftStateSize()
	sess := rsm.Session{Client: 3, Seq: 1}
	var first, second outcome
	// The retry reaches the leader before the first try's entry commits.
	w.server(l).Submit(sess, int64(5), first.done)
	logged := w.c.Persister(0, l).RaftStateSize() - size
	w.server(l).Submit(sess, int64(5), second.done)
	assert.Equal(t, logged, w.c.Persister(0, l).RaftStateSize()-size, "the retry is not logged again")
	w.wait(t, &second, time.Second)
	assert.Equal(t, outcome{result: int64(5), ok: true, called: 1}, first)
	assert.Equal(t, outcome{result: int64(5), ok: true, called: 1}, second, "the retry answers with the first try's result")
	w.w.Run(100 * time.Millisecond)
	assert.Equal(t, []int{1, 1, 1}, w.applied)
}

func TestDuplicateInTheLogAppliesOnce(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	f := (l + 1) % 3
	size := w.c.Persister(0, f).RaftStateSize()
	sess := rsm.Session{Client: 3, Seq: 1}
	var first, second outcome
	// The first try reaches the followers, and its leader is cut off
	// before it hears so: the entry is in the log, not committed, and the
	// next leader knows of no waiter.
	w.server(l).Submit(sess, int64(5), first.done)
	require.True(t, w.w.RunUntil(func() bool { return w.c.Persister(0, f).RaftStateSize() > size }, time.Second))
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Isolate, Host: w.c.HostOf(0, l)}))
	var next int
	require.True(t, w.w.RunUntil(func() bool {
		var ok bool
		next, ok = w.c.Leader(0)
		return ok && next != l
	}, 5*time.Second), "another leader")
	require.Greater(t, w.c.Persister(0, next).RaftStateSize(), size, "the next leader has the entry")
	w.server(next).Submit(sess, int64(5), second.done)
	w.wait(t, &second, time.Second)
	assert.Equal(t, outcome{result: int64(5), ok: true, called: 1}, second, "the second copy answers with the first one's result")
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Heal}))
	w.w.Run(time.Second)
	assert.Equal(t, outcome{called: 1}, first, "the cut-off leader could not say")
	assert.Equal(t, []int{1, 1, 1}, w.applied, "and is not applied again")
}

func TestNoSnapshotBelowMaxRaftState(t *testing.T) {
	cfg := rsm.DefaultConfig()
	cfg.MaxRaftState = 1 << 20
	w := newWorld(t, cfg)
	l := w.leader(t)
	for seq := int64(1); seq <= 20; seq++ {
		var o outcome
		w.server(l).Submit(rsm.Session{Client: 1, Seq: seq}, int64(1), o.done)
		w.wait(t, &o, time.Second)
	}
	w.w.Run(time.Second)
	for i := range 3 {
		assert.Zero(t, w.c.Persister(0, i).SnapshotSize(), "server %d snapshotted far below MaxRaftState", i)
	}
}

func TestWaitersFailWhenLeadershipIsLost(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Isolate, Host: w.c.HostOf(0, l)}))
	var o outcome
	w.server(l).Submit(rsm.Session{Client: 1, Seq: 1}, int64(3), o.done)
	w.w.Run(raft.LabConfig().ElectionMax + 2*raft.LabConfig().Heartbeat)
	require.Equal(t, 1, o.called, "the cut-off leader steps down (CheckQuorum) and fails its waiter")
	assert.False(t, o.ok)
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Heal}))
	w.w.Run(time.Second)
	var read outcome
	w.server(w.leader(t)).Read(int64(0), read.done)
	w.wait(t, &read, time.Second)
	assert.Equal(t, int64(0), read.result, "the entry of the lost term was overwritten")
}

func TestReadModes(t *testing.T) {
	for _, mode := range []rsm.ReadMode{rsm.ReadLog, rsm.ReadIndex, rsm.ReadLease} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := rsm.DefaultConfig()
			cfg.Reads = mode
			w := newWorld(t, cfg)
			l := w.leader(t)
			var o outcome
			w.server(l).Submit(rsm.Session{Client: 1, Seq: 1}, int64(4), o.done)
			w.wait(t, &o, time.Second)
			w.w.Run(raft.LabConfig().Heartbeat) // the followers learn the commit
			count, size := w.c.Net().GetTotalCount(), w.c.Persister(0, l).RaftStateSize()
			var read outcome
			w.server(l).Read(int64(0), read.done)
			w.wait(t, &read, time.Second)
			assert.Equal(t, outcome{result: int64(4), ok: true, called: 1}, read)
			rpcs := w.c.Net().GetTotalCount() - count
			grew := w.c.Persister(0, l).RaftStateSize() > size
			assert.Equal(t, mode == rsm.ReadLog, grew, "a %v read goes through the log: %v", mode, mode == rsm.ReadLog)
			switch mode {
			case rsm.ReadLease:
				assert.Zero(t, rpcs, "a lease read sends nothing")
			default:
				assert.Positive(t, rpcs, "a %v read asks the followers", mode)
			}
			var follower outcome
			w.server((l+1)%3).Read(int64(0), follower.done)
			w.wait(t, &follower, time.Second)
			assert.False(t, follower.ok, "a follower does not serve reads")
		})
	}
}

func TestSnapshotsKeepStateAndSessions(t *testing.T) {
	cfg := rsm.DefaultConfig()
	cfg.MaxRaftState = 300
	w := newWorld(t, cfg)
	l := w.leader(t)
	for seq := int64(1); seq <= 200; seq++ {
		// Client 1's last request ends up in the snapshot, not the log.
		client := int64(1 + seq/51)
		var o outcome
		w.server(l).Submit(rsm.Session{Client: client, Seq: seq}, int64(1), o.done)
		w.wait(t, &o, time.Second)
	}
	w.w.Run(time.Second)
	for i := range 3 {
		ps := w.c.Persister(0, i)
		assert.Positive(t, ps.SnapshotSize(), "server %d snapshotted", i)
		assert.Less(t, ps.RaftStateSize(), 2*cfg.MaxRaftState, "server %d trimmed its log", i)
	}
	for h := range w.c.Hosts() {
		require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Kill, Host: h}))
	}
	for h := range w.c.Hosts() {
		require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Restart, Host: h}))
	}
	l = w.leader(t)
	var retry, read outcome
	w.server(l).Read(int64(0), read.done)
	w.wait(t, &read, time.Second)
	before := w.applied[l]
	w.server(l).Submit(rsm.Session{Client: 1, Seq: 50}, int64(1), retry.done)
	w.wait(t, &retry, time.Second)
	assert.Equal(t, int64(200), read.result, "the state came back from the snapshot and the log")
	assert.Equal(t, int64(50), retry.result, "the retry was answered from the session kept in the snapshot")
	assert.Equal(t, before, w.applied[l], "and not applied again")
}

func TestBadInput(t *testing.T) {
	cfg := rsm.DefaultConfig()
	cfg.Reads = 9
	assert.EqualError(t, cfg.Validate(), "rsm: unknown read mode 9")
	cfg = rsm.DefaultConfig()
	cfg.MaxRaftState = -2
	assert.EqualError(t, cfg.Validate(), "rsm: MaxRaftState -2 must be positive, or -1 for no snapshots")
	for m, name := range map[rsm.ReadMode]string{-1: "ReadMode(-1)", rsm.ReadLog: "log", rsm.ReadIndex: "ReadIndex", rsm.ReadLease: "lease", 3: "ReadMode(3)", 9: "ReadMode(9)"} {
		assert.Equal(t, name, m.String())
	}

	w := sim.NewWorld(1)
	h := w.NewHost("h")
	h.Persister().Save(nil, []byte{1, 1, 2})
	applied := 0
	_, err := rsm.MakeServer(h, make([]*labrpc.ClientEnd, 1), 0, h.Persister(), &counter{applied: &applied}, codec{}, rsm.DefaultConfig())
	assert.ErrorIs(t, err, wire.ErrTruncated)
	assert.ErrorContains(t, err, "rsm: server 0: bad snapshot")
	h.Persister().Save(nil, []byte{1, 0, 1, 0x80})
	_, err = rsm.MakeServer(h, make([]*labrpc.ClientEnd, 1), 0, h.Persister(), &counter{applied: &applied}, codec{}, rsm.DefaultConfig())
	assert.True(t, errors.Is(err, wire.ErrTruncated), fmt.Sprint(err))
}

// add has ck add n and returns the new total once a server answered.
func (w *world) add(t *testing.T, ck *rsm.Clerk, n int64, limit time.Duration) int64 {
	t.Helper()
	var total int64
	done := 0
	ck.Call("Counter.Add", &AddArgs{Session: ck.NextSession(), N: n}, func() any { return &AddReply{} },
		func(r any) bool { return r.(*AddReply).Wrong },
		func(r any) { total = r.(*AddReply).Total; done++ })
	require.True(t, w.w.RunUntil(func() bool { return done > 0 }, limit), "no answer within %v", limit)
	w.w.Run(2 * limit) // late answers to earlier tries must not call done again
	require.Equal(t, 1, done, "done called once")
	return total
}

func TestClerkFindsTheLeaderAndKeepsIt(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	client := w.c.NewClient("c")
	ck := rsm.MakeClerk(client, w.c.Ends(client, 0, nil))
	assert.Equal(t, int64(1), w.add(t, ck, 1, time.Second))
	first := w.calls
	assert.Equal(t, l+1, first, "servers 0..leader tried in turn")
	assert.Equal(t, int64(3), w.add(t, ck, 2, time.Second))
	assert.Equal(t, first+1, w.calls, "the second call goes straight to the leader")
}

func TestClerkMovesOnAfterTimeoutAndRetriesOnce(t *testing.T) {
	cfg := rsm.DefaultConfig()
	cfg.Raft.CheckQuorum = false // the cut-off leader stays leader and never answers
	w := newWorld(t, cfg)
	l := w.leader(t)
	client := w.c.NewClient("c")
	ck := rsm.MakeClerk(client, w.c.Ends(client, 0, nil))
	assert.Equal(t, int64(1), w.add(t, ck, 1, time.Second))
	// The leader is cut off from the other servers but not from the
	// clerk: its answer never comes, and only the clerk's timeout moves it on.
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Isolate, Host: w.c.HostOf(0, l)}))
	ck.SetTimeout(50 * time.Millisecond)
	assert.Equal(t, int64(3), w.add(t, ck, 2, 900*time.Millisecond), "done within a new election and a few 50 ms timeouts")
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Heal}))
	w.w.Run(time.Second)
	assert.Equal(t, []int{2, 2, 2}, w.applied, "each add applied once everywhere, though tried more than once")
}

func TestClerkPausesAfterEachRound(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	w.leader(t)
	for h := range w.c.Hosts() {
		require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Isolate, Host: h}))
	}
	w.w.Run(time.Second) // every server steps down: each answers "wrong leader" at once
	client := w.c.NewClient("c")
	ck := rsm.MakeClerk(client, w.c.Ends(client, 0, nil))
	calls := w.calls
	ck.Call("Counter.Add", &AddArgs{Session: ck.NextSession(), N: 1}, func() any { return &AddReply{} },
		func(r any) bool { return r.(*AddReply).Wrong }, func(any) { t.Error("no server can answer") })
	w.w.Run(time.Second)
	tries := w.calls - calls
	// Each round is three tries of about a millisecond each, then a 10 ms pause.
	assert.Greater(t, tries, 3*50, "rounds paused too long")
	assert.Less(t, tries, 3*100, "rounds not paused")
}

func TestClerkBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("c")
	assert.PanicsWithValue(t, "rsm: MakeClerk: a clerk needs at least one server, got none", func() { rsm.MakeClerk(h, nil) })
	ck := rsm.MakeClerk(h, make([]*labrpc.ClientEnd, 1))
	assert.PanicsWithValue(t, "rsm: clerk timeout 0s is not positive", func() { ck.SetTimeout(0) })
	assert.PanicsWithValue(t, "rsm: MakeClerk: a nil host", func() { rsm.MakeClerk(nil, nil) })
	assert.PanicsWithValue(t, "rsm: MakeRouter: a nil host", func() { rsm.MakeRouter(nil, nil) })
	assert.PanicsWithValue(t, "rsm: MakeRouter: a router needs at least one server, got none", func() { rsm.MakeRouter(ck.Host(), nil) })
	assert.PanicsWithValue(t, "rsm: clerk timeout -1ns is not positive", func() { ck.SetTimeout(-1) })
}

// TestRouterRunsCallsConcurrently sends ten calls at once through one
// router, each in a session of its own: all are answered, each applies
// once, and the router then goes straight to the leader it found.
func TestRouterRunsCallsConcurrently(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	client := w.c.NewClient("c")
	r := rsm.MakeRouter(client, w.c.Ends(client, 0, nil))
	answered := 0
	for i := range 10 {
		r.Call("Counter.Add", &AddArgs{Session: rsm.Session{Client: int64(100 + i), Seq: 1}, N: 1}, func() any { return &AddReply{} },
			func(r any) bool { return r.(*AddReply).Wrong }, func(any) { answered++ })
	}
	require.True(t, w.w.RunUntil(func() bool { return answered == 10 }, time.Second), "every call answered")
	w.w.Run(time.Second)
	assert.Equal(t, 10, w.applied[l], "each call applied once")
	calls := w.calls
	done := false
	r.Call("Counter.Add", &AddArgs{Session: rsm.Session{Client: 200, Seq: 1}, N: 1}, func() any { return &AddReply{} },
		func(r any) bool { return r.(*AddReply).Wrong }, func(any) { done = true })
	require.True(t, w.w.RunUntil(func() bool { return done }, time.Second))
	assert.Equal(t, calls+1, w.calls, "the next call goes straight to the leader")
}

// TestGobCodec round-trips commands and results, and refuses values of
// the wrong type and bytes that do not decode.
func TestGobCodec(t *testing.T) {
	type cmd struct {
		Key  string
		Vals []int
	}
	var c rsm.GobCodec[cmd, string]
	b, err := c.AppendCommand([]byte("x"), cmd{"k", []int{1, 2}})
	require.NoError(t, err)
	got, err := c.DecodeCommand(b[1:])
	require.NoError(t, err)
	assert.Equal(t, cmd{"k", []int{1, 2}}, got)
	again, err := c.AppendCommand(nil, cmd{"k", []int{1, 2}})
	require.NoError(t, err)
	assert.Equal(t, b[1:], again, "equal values, equal bytes")
	r, err := c.AppendResult(nil, "ok")
	require.NoError(t, err)
	res, err := c.DecodeResult(r)
	require.NoError(t, err)
	assert.Equal(t, "ok", res)

	_, err = c.AppendCommand(nil, 42)
	assert.EqualError(t, err, "rsm: GobCodec: int is not a rsm_test.cmd")
	_, err = c.AppendResult(nil, cmd{})
	assert.EqualError(t, err, "rsm: GobCodec: rsm_test.cmd is not a string")
	_, err = c.DecodeCommand([]byte{1, 2, 3})
	assert.ErrorContains(t, err, "rsm: GobCodec: ")
	_, err = c.DecodeResult(append(r, 0))
	assert.EqualError(t, err, "rsm: GobCodec: 1 bytes after the value")
}

// TestGobCodecWritesWhatAFreshEncoderWrites checks that every encoding
// stands alone, byte for byte what a fresh gob encoder writes, although
// the codec builds a type's descriptors once: for values of a nested
// type, the first of its type and later ones, and for a type holding an
// interface, whose values may carry types of their own; and that
// GobSnapshots, made by NewGobSnapshots or zero, writes a snapshot as the
// fresh encoder the services used before it writes it.
func TestGobCodecWritesWhatAFreshEncoderWrites(t *testing.T) {
	type inner struct {
		N    int
		Tags []string
	}
	type cmd struct {
		Get   *inner
		Put   *inner
		Pairs [][2]int64
	}
	type anyCmd struct {
		V any
	}
	gob.Register(inner{})
	fresh := func(v any) []byte {
		var buf bytes.Buffer
		require.NoError(t, gob.NewEncoder(&buf).Encode(v))
		return buf.Bytes()
	}
	c := rsm.NewGobCodec[cmd, anyCmd]()
	for _, v := range []cmd{{}, {Get: &inner{N: 1}}, {Put: &inner{N: -7, Tags: []string{"a", ""}}, Pairs: [][2]int64{{1, 2}}}, {}} {
		b, err := c.AppendCommand([]byte("x"), v)
		require.NoError(t, err)
		assert.Equal(t, fresh(&v), b[1:], "%+v", v)
		got, err := c.DecodeCommand(b[1:])
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
	for _, v := range []anyCmd{{V: 3}, {V: inner{N: 2}}, {V: "s"}, {V: inner{N: 5}}} {
		b, err := c.AppendResult(nil, v)
		require.NoError(t, err)
		assert.Equal(t, fresh(&v), b, "%+v", v)
		got, err := c.DecodeResult(b)
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
	for _, snaps := range []rsm.GobSnapshots[cmd]{rsm.NewGobSnapshots[cmd](), {}} {
		for _, v := range []cmd{{}, {Put: &inner{N: 4, Tags: []string{"b"}}}, {Pairs: [][2]int64{{3, 4}, {5, 6}}}, {Get: &inner{}}} {
			b, err := snaps.Encode(v)
			require.NoError(t, err)
			assert.Equal(t, fresh(v), b, "a snapshot of %+v", v)
		}
	}
}

// TestOnLeadership tells the service when its server leads and when it
// stops, after the server has answered the requests it waited on.
func TestOnLeadership(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	s := w.server(l)
	assert.True(t, s.IsLeader())
	assert.False(t, w.server((l+1)%3).IsLeader())
	var news []bool
	var failedFirst bool
	var o outcome
	s.OnLeadership(func(_ int, leading bool) {
		news = append(news, leading)
		failedFirst = o.called == 1 && !o.ok
	})
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Isolate, Host: w.c.HostOf(0, l)}))
	s.Submit(rsm.Session{}, int64(1), func(_ any, ok bool) { o.called++; o.ok = ok })
	w.w.Run(2 * time.Second)
	assert.Equal(t, []bool{false}, news, "the isolated leader stepped down once")
	assert.True(t, failedFirst, "its waiting request was answered before the service heard")
}

// TestNewLeaderAppliesEarlierEntries cuts the leader off the moment it
// applies a command, before its followers learn that it committed: a
// follower elected next must apply it (and so must the other) though no
// client asks for anything more, which takes the barrier a new leader
// puts in its log.
func TestNewLeaderAppliesEarlierEntries(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	w.server(l).Submit(rsm.Session{}, int64(5), func(any, bool) {})
	require.True(t, w.w.RunUntil(func() bool { return w.applied[l] == 1 }, time.Second))
	others := []int{(l + 1) % 3, (l + 2) % 3}
	assert.Equal(t, []int{0, 0}, []int{w.applied[others[0]], w.applied[others[1]]}, "the followers have not applied it yet")
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Isolate, Host: w.c.HostOf(0, l)}))
	w.w.Run(3 * time.Second)
	assert.Equal(t, []int{1, 1}, []int{w.applied[others[0]], w.applied[others[1]]}, "the new leader committed and applied it")
}

// TestPlantedReplyBeforeCommit plants "writes answered before they
// commit": the leader answers a write (a request with a session) as soon
// as it is in its log, with no result, while a read (no session) still
// waits for the log.
func TestPlantedReplyBeforeCommit(t *testing.T) {
	bug, ok := plant.Named(rsm.PlantedBugs(), "writes answered before they commit")
	require.True(t, ok)
	cfg := rsm.DefaultConfig()
	bug.Plant(&cfg)
	w := newWorld(t, cfg)
	s := w.server(w.leader(t))
	var write, read outcome
	s.Submit(rsm.Session{Client: 1, Seq: 1}, int64(5), write.done)
	s.Submit(rsm.Session{}, int64(0), read.done)
	assert.Equal(t, outcome{ok: true, called: 1}, write, "the write answered at once")
	assert.Zero(t, read.called, "the read waits")
	w.wait(t, &read, time.Second)
	assert.Equal(t, outcome{result: int64(5), ok: true, called: 1}, read, "the read answered once applied, after the write")
}
