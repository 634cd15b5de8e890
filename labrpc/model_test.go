package labrpc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

func TestDefaultParamsAreTheLabsNumbers(t *testing.T) {
	assert.Equal(t, Params{
		Latency: 250_000, Jitter: 50_000,
		RequestLoss: 0.1, ReplyLoss: 0.1, ShortDelay: 27_000_000,
		ReorderProb: 2.0 / 3.0, ReorderMin: 200_000_000, ReorderSpan: 2_000_000_000,
		NoReply: 100_000_000, LongNoReply: 7_000_000_000,
	}, DefaultParams())
	assert.Equal(t, DefaultParams(), MakeNetwork(sim.NewWorld(1)).Params())
}

// quiet returns setup's network with no jitter, so that a reliable call
// draws no random numbers and takes exactly two latencies.
func quiet(t *testing.T, seed int64) (*sim.World, *Network, *JunkServer, *ClientEnd) {
	w, net, js, e := setup(seed)
	p := net.Params()
	p.Latency, p.Jitter = time.Millisecond, 0
	require.NoError(t, net.SetParams(p))
	return w, net, js, e
}

func TestAReliableCallCostsTwoEventsAndNoRandomness(t *testing.T) {
	w, _, _, e := quiet(t, 1)
	var reply string
	start := w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 1, &reply))
	assert.Equal(t, 2*time.Millisecond, w.Now()-start)
	assert.EqualValues(t, 2, w.Events(), "a delivery and a reply; no event for free processing")
	assert.Equal(t, sim.NewWorld(1).Rand().Uint64(), w.Rand().Uint64(),
		"faults that are off draw nothing from the world's generator")
}

func TestLongReorderingHoldsRepliesBack(t *testing.T) {
	for _, prob := range []float64{0, 1} {
		w, net, _, e := quiet(t, 1)
		p := net.Params()
		p.ReorderProb, p.ReorderMin, p.ReorderSpan = prob, time.Second, 0
		require.NoError(t, net.SetParams(p))
		net.LongReordering(true)
		var reply string
		start := w.Now()
		require.True(t, callSync(t, w, e, "JunkServer.Handler2", 1, &reply))
		want := 2 * time.Millisecond
		if prob == 1 {
			want = time.Millisecond + time.Second
		}
		assert.Equal(t, want, w.Now()-start, "with ReorderProb %v", prob)
	}
}

func TestDuplicateArrivesOneTransitLater(t *testing.T) {
	w, net, js, e := quiet(t, 1)
	p := net.Params()
	p.Duplicate = 1
	require.NoError(t, net.SetParams(p))
	var reply int
	e.Call("JunkServer.Handler6", "abc", &reply, func(bool) {})
	w.Run(1500 * time.Microsecond)
	assert.Equal(t, 1, js.calls)
	w.Run(time.Millisecond)
	assert.Equal(t, 2, js.calls, "the copy arrives a latency after the first")
}

func TestRequestAndReplyLossAreAllOrNothingAtTheExtremes(t *testing.T) {
	for _, c := range []struct {
		reqLoss, replyLoss float64
		handled, ok        bool
	}{{0, 0, true, true}, {1, 0, false, false}, {0, 1, true, false}} {
		w, net, js, e := quiet(t, 1)
		p := net.Params()
		p.RequestLoss, p.ReplyLoss, p.ShortDelay = c.reqLoss, c.replyLoss, 0
		require.NoError(t, net.SetParams(p))
		net.Reliable(false)
		for range 20 {
			var reply int
			assert.Equal(t, c.ok, callSync(t, w, e, "JunkServer.Handler6", "x", &reply))
		}
		assert.Equal(t, c.handled, js.calls == 20, "%+v: %d handled", c, js.calls)
		assert.Equal(t, c.handled, js.calls > 0)
	}
}

func TestReplacingAServerFailsTheCallsItOwes(t *testing.T) {
	w, net, js, e := quiet(t, 1)
	var reply JunkReply
	result := "none"
	e.Call("JunkServer.Slow", &JunkArgs{X: 1}, &reply, func(ok bool) { result = map[bool]string{true: "ok", false: "failed"}[ok] })
	w.Run(10 * time.Millisecond)
	require.Len(t, js.pending, 1)
	net.AddServer(1000, net.servers[1000]) // the same server again: nothing changes
	w.Run(time.Second)
	assert.Equal(t, "none", result)

	other := MakeServer(w.Hosts()[0])
	other.AddService(MakeService(&JunkServer{}))
	net.AddServer(1000, other)
	w.Run(time.Second)
	assert.Equal(t, "failed", result)
	js.pending[0].Reply() // too late: the server is gone
	w.Run(time.Second)
	assert.Equal(t, "failed", result)
}

func TestAHostsDeathFailsItsServersCallsInRegistrationOrder(t *testing.T) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	p := net.Params()
	p.NoReply = 0
	require.NoError(t, net.SetParams(p))
	h := w.NewHost("server")
	var order []string
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		srv := MakeServer(h)
		srv.AddService(MakeService(&JunkServer{}))
		net.AddServer(name, srv)
		e := net.MakeEnd("to-"+name, nil)
		net.Connect("to-"+name, name)
		net.Enable("to-"+name, true)
		var reply JunkReply
		e.Call("JunkServer.Slow", &JunkArgs{}, &reply, func(ok bool) {
			assert.False(t, ok)
			order = append(order, name)
		})
	}
	w.Run(time.Second)
	h.Kill()
	w.Run(time.Second)
	assert.Equal(t, []string{"a", "b", "c", "d", "e", "f"}, order)
}

func TestEndsAreTracedApart(t *testing.T) {
	hash := func(from string) uint64 {
		w, net, _, _ := quiet(t, 1)
		net.MakeEnd("c2", w.Hosts()[1])
		net.Connect("c2", 1000)
		net.Enable("c2", true)
		var reply string
		require.True(t, callSync(t, w, net.ends[from], "JunkServer.Handler2", 1, &reply))
		return w.TraceHash()
	}
	assert.NotEqual(t, hash("c"), hash("c2"), "the same call from another end is another trace")
}

type Conv struct{}

func (Conv) Len(args string, reply *int)      { *reply = len(args) }
func (Conv) Twice(args string, reply *string) { *reply = args + args }

func TestOneEndCallsWithManyTypes(t *testing.T) {
	w, _, e := serve(Conv{})
	for range 2 {
		var n int
		var s string
		require.True(t, callSync(t, w, e, "Conv.Len", "abc", &n))
		require.True(t, callSync(t, w, e, "Conv.Twice", "abc", &s))
		assert.Equal(t, 3, n)
		assert.Equal(t, "abcabc", s)
	}
}

func TestWideValuesAreNotTooDeep(t *testing.T) {
	nodes := make([]*Node, 3*maxDepth)
	for i := range nodes {
		nodes[i] = &Node{V: 1}
	}
	assert.EqualValues(t, 3+3*maxDepth*2, sizeOf(t, nodes), "a length of 3 bytes, and 30000 nodes of 2")
}

func TestEndsFollowServersAddedAndDeletedLater(t *testing.T) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	e := net.MakeEnd("e", nil)
	net.Connect("e", "s")
	net.Enable("e", true)
	var n int
	assert.False(t, callSync(t, w, e, "Conv.Len", "abc", &n), "no server yet")

	srv := MakeServer(nil)
	srv.AddService(MakeService(Conv{}))
	net.AddServer("s", srv)
	net.MakeEnd("other", nil)
	net.Connect("other", "s")
	assert.True(t, callSync(t, w, e, "Conv.Len", "abc", &n), "the server added since")

	net.DeleteServer("s")
	net.Connect("other", "s")
	assert.False(t, callSync(t, w, e, "Conv.Len", "abc", &n), "the server deleted since")
	net.AddServer("s", srv)
	assert.True(t, callSync(t, w, e, "Conv.Len", "abc", &n))
}
