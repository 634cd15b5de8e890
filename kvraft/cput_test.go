package kvraft

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/simtest"
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
	assert.EqualError(t, err, "kvraft: maxraftstate 0 must be positive, or -1 for no snapshots")
	opts := DefaultOptions()
	opts.Reads = 7
	_, err = StartKVServer(h, ends, 0, h.Persister(), -1, opts)
	assert.EqualError(t, err, "kvraft: unknown read mode 7")
	opts = DefaultOptions()
	opts.Raft.Heartbeat = 0
	_, err = StartKVServer(h, ends, 0, h.Persister(), -1, opts)
	assert.EqualError(t, err, "raft: Heartbeat 0s is not positive")

	ck := MakeClerk(h, ends)
	ck.Put("a", "b", func() {})
	assert.PanicsWithValue(t,
		"kvraft: clerk "+strconv.FormatInt(ck.ID(), 10)+": KVServer.Get while KVServer.PutAppend is in progress; a clerk does one operation at a time",
		func() { ck.Get("a", func(string, int64) {}) })
	assert.PanicsWithValue(t, "kvraft: MakeClerk: a clerk needs at least one server, got none", func() { MakeClerk(h, nil) })
	assert.PanicsWithValue(t, "kvraft: clerk timeout 0s is not positive", func() { ck.SetTimeout(0) })
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

func TestOpCodecRoundTrip(t *testing.T) {
	op := Op{Kind: OpCPut, Key: "k", Value: "v", Version: 7, ClientID: -3, Seq: 99}
	b, err := opCodec{}.AppendCommand(nil, op)
	require.NoError(t, err)
	back, err := opCodec{}.DecodeCommand(b)
	require.NoError(t, err)
	assert.Equal(t, op, back)
	_, err = opCodec{}.DecodeCommand(b[:len(b)-1])
	assert.ErrorIs(t, err, errTruncated)
	_, err = opCodec{}.AppendCommand(nil, 5)
	assert.EqualError(t, err, "kvraft: command int is not an Op")
}
