package kvraft

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/simtest"
	"github.com/replab/replab/wire"
)

func TestConditionalPut(t *testing.T) { runScenario(t, conditionalPut) }

// conditionalPut has five clerks each add one to a counter ten times with
// read-modify-write loops (Get, then CPut on the version read) over an
// unreliable network: no increment may be lost or doubled.
func conditionalPut(t simtest.T, seed int64, opts Options) *config {
	const clients, increments = 5, 10
	cfg := makeConfig(t, seed, 5, true, -1, opts)
	done := 0
	for range clients {
		ck := cfg.makeClient(cfg.All())
		left := increments
		var incr func()
		incr = func() {
			if left == 0 {
				done++
				return
			}
			ck.getAsync("counter", func(v string) {
				n, _ := strconv.Atoi(v)
				_, version := ck.lastRead()
				ck.CPut("counter", strconv.Itoa(n+1), version, func(ok bool) {
					if ok {
						left--
					}
					incr()
				})
			})
		}
		incr()
	}
	if !cfg.w.RunUntil(func() bool { return done == clients }, opLimit) {
		t.Fatalf("the clerks did not finish")
	}
	if v := cfg.makeClient(cfg.All()).get("counter"); v != strconv.Itoa(clients*increments) {
		t.Fatalf("counter is %q after %d increments", v, clients*increments)
	}
	cfg.checkLinearizable()
	return cfg
}

func TestBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	net := labrpc.MakeNetwork(w)
	ends := []*labrpc.ClientEnd{net.MakeEnd("e", h)}
	_, err := StartKVServer(h, ends, 0, h.Persister(), 0, DefaultOptions())
	assert.EqualError(t, err, "rsm: MaxRaftState 0 must be positive, or -1 for no snapshots")
	opts := DefaultOptions()
	opts.Reads = 7
	_, err = StartKVServer(h, ends, 0, h.Persister(), -1, opts)
	assert.EqualError(t, err, "rsm: unknown read mode 7")
	opts = DefaultOptions()
	opts.Raft.Heartbeat = 0
	_, err = StartKVServer(h, ends, 0, h.Persister(), -1, opts)
	assert.EqualError(t, err, "raft: Heartbeat 0s is not positive")

	ck := MakeClerk(h, ends)
	ck.Put("a", "b", func() {})
	assert.PanicsWithValue(t,
		"rsm: clerk "+strconv.FormatInt(ck.ID(), 10)+": KVServer.Get while KVServer.PutAppend is in progress; a clerk does one call at a time",
		func() { ck.Get("a", func(string, int64) {}) })
	assert.PanicsWithValue(t, "rsm: MakeClerk: a clerk needs at least one server, got none", func() { MakeClerk(h, nil) })
	assert.PanicsWithValue(t, "rsm: clerk timeout 0s is not positive", func() { ck.SetTimeout(0) })
}

func TestClusterBadInput(t *testing.T) {
	c, err := NewCluster(sim.NewWorld(1), 5, -1, DefaultOptions())
	require.NoError(t, err)
	assert.PanicsWithValue(t, "kvraft: Partition([[0 1] [1 2 3 4]]): server 1 is in two groups", func() { c.Partition([]int{0, 1}, []int{1, 2, 3, 4}) })
	assert.PanicsWithValue(t, "kvraft: Partition: server 7 is not in 0..4", func() { c.Partition([]int{0, 7}) })
	ck := c.MakeClerk(c.All())
	assert.PanicsWithValue(t, "kvraft: ConnectClerk: server 9 is not in 0..4", func() { c.ConnectClerk(ck, []int{9}) })
	assert.PanicsWithValue(t, "kvraft: Shutdown: server -1 is not in 0..4", func() { c.Shutdown(-1) })
	assert.EqualError(t, c.Start(5), "kvraft: Start: server 5 is not in 0..4")
	assert.PanicsWithValue(t, "kvraft: MakeClerk: server 5 is not in 0..4", func() { c.MakeClerk([]int{5}) })
}

func TestCodecRoundTrip(t *testing.T) {
	op := Op{Kind: OpCPut, Key: "k", Value: "v", Version: 7}
	b, err := codec{}.AppendCommand(nil, op)
	require.NoError(t, err)
	back, err := codec{}.DecodeCommand(b)
	require.NoError(t, err)
	assert.Equal(t, op, back)
	for n := range len(b) {
		_, err = codec{}.DecodeCommand(b[:n])
		assert.ErrorIs(t, err, wire.ErrTruncated, "a prefix of %d bytes", n)
	}
	_, err = codec{}.DecodeCommand(append([]byte{9}, b[1:]...))
	assert.EqualError(t, err, "kvraft: unknown operation 9 in a log entry")
	_, err = codec{}.AppendCommand(nil, 5)
	assert.EqualError(t, err, "kvraft: command int is not an Op")

	r := result{err: ErrVersion, value: "x", version: -2}
	b, err = codec{}.AppendResult(nil, r)
	require.NoError(t, err)
	rback, err := codec{}.DecodeResult(b)
	require.NoError(t, err)
	assert.Equal(t, r, rback)
	_, err = codec{}.DecodeResult(b[:len(b)-1])
	assert.ErrorIs(t, err, wire.ErrTruncated)
	_, err = codec{}.AppendResult(nil, "no")
	assert.EqualError(t, err, "kvraft: result string is not a kvraft result")
}

func TestStoreSnapshotRoundTrip(t *testing.T) {
	s := &store{data: map[string]value{}}
	s.Apply(Op{Kind: OpPut, Key: "b", Value: "2"})
	s.Apply(Op{Kind: OpAppend, Key: "a", Value: "1"})
	assert.Equal(t, result{err: ErrVersion}, s.Apply(Op{Kind: OpCPut, Key: "a", Value: "x", Version: 5}))
	snap := s.Snapshot()
	other := &store{}
	require.NoError(t, other.Restore(snap))
	assert.Equal(t, s.data, other.data)
	assert.Equal(t, snap, other.Snapshot(), "equal states give equal bytes")
	for n := 1; n < len(snap); n++ {
		assert.Error(t, (&store{}).Restore(snap[:n]), "a prefix of %d bytes", n)
	}
}
