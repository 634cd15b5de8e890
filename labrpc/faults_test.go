package labrpc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

type Secret struct {
	Public int
	hidden int
}

// The cycle reported in a map is the same every run, whatever the map's
// order.
func TestCycleInAMapIsReportedTheSameEveryRun(t *testing.T) {
	m := map[string]any{}
	m["c"], m["a"], m["b"] = m, m, m
	for range 30 {
		net := MakeNetwork(sim.NewWorld(1))
		var reply int
		require.PanicsWithError(t, "labrpc: cannot send map[string]interface {} at [a]: a cycle: it refers back to the value at the top",
			func() { net.MakeEnd("e", nil).Call("Nobody.Listens", m, &reply, func(bool) {}) })
	}
}

type BadServer struct{}

func (BadServer) Leak(args *Secret, reply *int) { *reply = args.hidden }

type Chan struct{ C chan int }

// BadTree is recursive and cannot be sent.
type BadTree struct {
	Kids []BadTree
	F    func()
}

func TestBadInput(t *testing.T) {
	w, net, _, e := setup(1)

	assert.PanicsWithError(t,
		"labrpc: BadServer.Leak: labrpc: cannot send *labrpc.Secret at hidden: field hidden of labrpc.Secret is unexported; only exported fields cross the network",
		func() { MakeService(BadServer{}) }, "an unexported field is caught at registration")

	var reply string
	assert.PanicsWithValue(t, `labrpc: Call("JunkServer.Handler2"): reply must be a non-nil pointer, got string`,
		func() { e.Call("JunkServer.Handler2", 1, reply, func(bool) {}) })
	assert.PanicsWithError(t, "labrpc: cannot send labrpc.Secret at hidden: field hidden of labrpc.Secret is unexported; only exported fields cross the network",
		func() { e.Call("JunkServer.Handler2", Secret{}, &reply, func(bool) {}) }, "an unexported field is caught at first use")
	assert.PanicsWithError(t, "labrpc: cannot send labrpc.Chan at C: a chan cannot be copied across the network",
		func() { e.Call("JunkServer.Handler2", Chan{}, &reply, func(bool) {}) })
	// A type that failed leaves nothing half built behind: a slice of it,
	// compiled while it was, fails too.
	assert.PanicsWithError(t, "labrpc: cannot send labrpc.BadTree at F: a func cannot be copied across the network",
		func() { e.Call("JunkServer.Handler2", BadTree{}, &reply, func(bool) {}) })
	assert.PanicsWithError(t, "labrpc: cannot send []labrpc.BadTree at [].F: a func cannot be copied across the network",
		func() { e.Call("JunkServer.Handler2", []BadTree(nil), &reply, func(bool) {}) })

	const unknown = `labrpc: unknown method "JunkServer.NoSuch"; this server has JunkServer.Handler1, JunkServer.Handler2, JunkServer.Handler4, JunkServer.Handler5, JunkServer.Handler6, JunkServer.Slow`
	assert.PanicsWithValue(t, unknown, func() { e.Call("JunkServer.NoSuch", 1, &reply, func(bool) {}) })
	assert.PanicsWithValue(t, "labrpc: JunkServer.Handler2 takes args of type int, but the call sent string",
		func() { e.Call("JunkServer.Handler2", "not an int", &reply, func(bool) {}) })
	var n int
	assert.PanicsWithValue(t, "labrpc: JunkServer.Handler2 replies with *string, but the call expects *int",
		func() { e.Call("JunkServer.Handler2", 1, &n, func(bool) {}) })
	assert.Zero(t, net.GetTotalCount(), "no bad call was sent")

	// The check is made at the call even when the request would be lost.
	net.Enable("c", false)
	assert.PanicsWithValue(t, unknown, func() { e.Call("JunkServer.NoSuch", 1, &reply, func(bool) {}) })
	net.Enable("c", true)
	w.Hosts()[0].Kill()
	assert.PanicsWithValue(t, unknown, func() { e.Call("JunkServer.NoSuch", 1, &reply, func(bool) {}) })
	w.Hosts()[0].Restart()

	// A service replaced by one without the method panics on delivery.
	e.Call("JunkServer.Handler2", 1, &reply, func(bool) {})
	type JunkServer struct{ Capture }
	net.servers[1000].AddService(MakeService(&JunkServer{}))
	assert.PanicsWithValue(t, `labrpc: unknown method "JunkServer.Handler2"; this server has JunkServer.Take`,
		func() { w.Run(time.Second) })

	p := DefaultParams()
	p.RequestLoss = 1.5
	assert.EqualError(t, net.SetParams(p), "labrpc: RequestLoss = 1.5 is not a probability in [0,1]")
	p = DefaultParams()
	p.Latency = -time.Millisecond
	assert.EqualError(t, net.SetParams(p), "labrpc: Latency = -1ms is negative")
	p = DefaultParams()
	p.Bandwidth = -1
	assert.EqualError(t, net.SetParams(p), "labrpc: Bandwidth = -1 bytes/s is negative")
}

func TestNilsAreCaughtAtTheCall(t *testing.T) {
	_, net, _, e := setup(1)
	var reply JunkReply
	assert.PanicsWithValue(t, `labrpc: Call("JunkServer.Handler4"): args is a nil *labrpc.JunkArgs`,
		func() { e.Call("JunkServer.Handler4", (*JunkArgs)(nil), &reply, func(bool) {}) })
	assert.PanicsWithValue(t, `labrpc: Call("JunkServer.Handler4"): args must not be nil`,
		func() { e.Call("JunkServer.Handler4", nil, &reply, func(bool) {}) })
	assert.PanicsWithValue(t, `labrpc: Call("JunkServer.Handler4"): reply must be a non-nil pointer, got a nil *labrpc.JunkReply`,
		func() { e.Call("JunkServer.Handler4", &JunkArgs{}, (*JunkReply)(nil), func(bool) {}) })
	assert.PanicsWithValue(t, `labrpc: Call("JunkServer.Handler4"): reply must be a non-nil pointer, got <nil>`,
		func() { e.Call("JunkServer.Handler4", &JunkArgs{}, nil, func(bool) {}) })
	assert.PanicsWithValue(t, `labrpc: Call("JunkServer.Handler4"): done must not be nil`,
		func() { e.Call("JunkServer.Handler4", &JunkArgs{}, &reply, nil) })
	assert.Zero(t, net.GetTotalCount(), "no bad call was sent")
}

type Node struct {
	V    int
	Next *Node
}

type Tree struct {
	Kids []any
	Up   map[string]*Tree
}

func TestCyclesAreCaughtAtTheCall(t *testing.T) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	e := net.MakeEnd("e", nil)
	var reply int

	ring := &Node{V: 1, Next: &Node{V: 2}}
	ring.Next.Next = ring
	assert.PanicsWithError(t, "labrpc: cannot send *labrpc.Node at Next.Next: a cycle: it refers back to the value at the top",
		func() { e.Call("Capture.Take", ring, &reply, func(bool) {}) })

	loop := &Node{V: 1}
	loop.Next = loop
	assert.PanicsWithError(t, "labrpc: cannot send labrpc.Node at Next.Next: a cycle: it refers back to the value at Next",
		func() { e.Call("Capture.Take", *loop, &reply, func(bool) {}) })

	tr := &Tree{Up: map[string]*Tree{}}
	tr.Kids = []any{1, "x", tr.Kids}
	tr.Kids[2] = tr.Kids
	assert.PanicsWithError(t, "labrpc: cannot send *labrpc.Tree at Kids[2]: a cycle: it refers back to the value at Kids",
		func() { e.Call("Capture.Take", tr, &reply, func(bool) {}) })
	tr.Kids = nil
	tr.Up["root"] = tr
	assert.PanicsWithError(t, "labrpc: cannot send *labrpc.Tree at Up[root]: a cycle: it refers back to the value at the top",
		func() { e.Call("Capture.Take", tr, &reply, func(bool) {}) })

	var long *Node
	for i := range maxDepth {
		long = &Node{V: i, Next: long}
	}
	e.Call("Capture.Take", long, &reply, func(bool) {}) // 10000 pointers deep is fine
	long = &Node{Next: long}
	assert.PanicsWithError(t, "labrpc: cannot send *labrpc.Node: it nests more than 10000 references deep",
		func() { e.Call("Capture.Take", long, &reply, func(bool) {}) })
	e.Call("Capture.Take", *long, &reply, func(bool) {}) // by value, it is one reference less deep

	// Shared (but acyclic) values and lists within the bound still go.
	shared := &Node{V: 7}
	short := &Node{V: 1, Next: &Node{V: 2, Next: &Node{V: 3}}}
	before := net.GetTotalBytes()
	for range 3 {
		e.Call("Capture.Take", []*Node{shared, shared, short}, &reply, func(bool) {})
	}
	assert.Equal(t, 5, net.GetTotalCount(), "only the good calls were sent")
	assert.EqualValues(t, 3*(1+2+2+4), net.GetTotalBytes()-before, "a length, two small nodes and a list of three")
}

func TestDuplicateDelivery(t *testing.T) {
	w, net, js, e := setup(1)
	p := net.Params()
	p.Duplicate = 1
	require.NoError(t, net.SetParams(p))
	completions := 0
	var reply int
	e.Call("JunkServer.Handler6", "abc", &reply, func(ok bool) { require.True(t, ok); completions++ })
	w.Run(time.Second)
	assert.Equal(t, 2, js.calls, "the handler ran twice")
	assert.Equal(t, 1, completions, "the caller heard once")
}

// KeepServer keeps what it is given, and then changes it.
type KeepServer struct{ kept [][]int }

func (s *KeepServer) Keep(args *Refs, reply *int) {
	s.kept = append(s.kept, args.Is)
	args.Is[0] = 99
}

func TestADuplicateGetsArgsOfItsOwn(t *testing.T) {
	ks := &KeepServer{}
	w, net, e := serve(ks)
	p := net.Params()
	p.Duplicate = 1
	require.NoError(t, net.SetParams(p))
	var reply int
	e.Call("KeepServer.Keep", &Refs{Is: []int{1}}, &reply, func(bool) {})
	w.Run(time.Second)
	require.Len(t, ks.kept, 2, "the handler ran twice")
	assert.Equal(t, [][]int{{99}, {99}}, ks.kept, "each handling changed its own args, as sent")
	ks.kept[0][0] = 5
	assert.Equal(t, 99, ks.kept[1][0])
}

func TestDuplicateDeliveryOfADeferredCall(t *testing.T) {
	w, net, js, e := setup(1)
	p := net.Params()
	p.Duplicate, p.Jitter = 1, 0
	require.NoError(t, net.SetParams(p))
	var reply JunkReply
	completions := 0
	e.Call("JunkServer.Slow", &JunkArgs{X: 4}, &reply, func(ok bool) { require.True(t, ok); completions++ })
	w.Run(time.Second)
	require.Len(t, js.pending, 2, "each delivery is handled")
	require.NotSame(t, js.pending[0], js.pending[1])
	require.NotSame(t, js.replies[0], js.replies[1], "each handling fills in a reply of its own")
	js.replies[0].X, js.replies[1].X = "first", "second"
	js.pending[1].Reply()
	js.pending[0].Reply()
	w.Run(time.Second)
	assert.Equal(t, 1, completions)
	assert.Equal(t, "second", reply.X, "the first answer to arrive wins")
}

func TestOneWayLinks(t *testing.T) {
	w, net, js, e := setup(1)
	server, client := w.Hosts()[0], w.Hosts()[1]

	net.SetLink(client, server, false)
	var reply string
	assert.False(t, callSync(t, w, e, "JunkServer.Handler2", 1, &reply))
	assert.Empty(t, js.log2, "no request crosses a cut link")

	net.HealLinks()
	net.SetLink(server, client, false)
	assert.False(t, callSync(t, w, e, "JunkServer.Handler2", 2, &reply))
	assert.Equal(t, []int{2}, js.log2, "the request got through: the cut is one-way")
	assert.Empty(t, reply, "the reply did not")

	net.SetLink(server, client, true)
	assert.True(t, callSync(t, w, e, "JunkServer.Handler2", 3, &reply))
	assert.Equal(t, "handler2-3", reply)
}

func TestLinkCutWhileInFlight(t *testing.T) {
	w, net, js, e := setup(1)
	server, client := w.Hosts()[0], w.Hosts()[1]
	var reply string
	done, ok := false, true
	e.Call("JunkServer.Handler2", 1, &reply, func(k bool) { done, ok = true, k })
	net.SetLink(client, server, false) // after sending, before arrival
	w.Run(time.Second)
	assert.True(t, done)
	assert.False(t, ok)
	assert.Empty(t, js.log2, "a message in flight when the link is cut is lost")
}

func TestLongReorderingReorders(t *testing.T) {
	w, net, _, e := setup(1)
	net.LongReordering(true)
	var order []int
	for i := range 50 {
		var reply string
		e.Call("JunkServer.Handler2", i, &reply, func(ok bool) {
			require.True(t, ok)
			order = append(order, i)
		})
	}
	start := w.Now()
	require.True(t, w.RunUntil(func() bool { return len(order) == 50 }, 5*time.Second))
	assert.False(t, isSorted(order), "replies came back in another order than the calls: %v", order)
	assert.Greater(t, w.Now()-start, 200*time.Millisecond, "some replies were held back")
}

// TestModesReadBack checks that each mode reads back as last set, each on
// its own: a monkey decides from them whether a fault changes anything.
func TestModesReadBack(t *testing.T) {
	_, net, _, _ := setup(1)
	assert.True(t, net.IsReliable(), "a new network is reliable")
	assert.False(t, net.IsLongReordering())
	assert.False(t, net.IsLongDelays())
	net.Reliable(false)
	assert.Equal(t, []bool{false, false, false}, []bool{net.IsReliable(), net.IsLongReordering(), net.IsLongDelays()})
	net.LongReordering(true)
	assert.Equal(t, []bool{false, true, false}, []bool{net.IsReliable(), net.IsLongReordering(), net.IsLongDelays()})
	net.LongDelays(true)
	assert.Equal(t, []bool{false, true, true}, []bool{net.IsReliable(), net.IsLongReordering(), net.IsLongDelays()})
	net.Reliable(true)
	net.LongReordering(false)
	assert.Equal(t, []bool{true, false, true}, []bool{net.IsReliable(), net.IsLongReordering(), net.IsLongDelays()})
}

func isSorted(xs []int) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			return false
		}
	}
	return true
}

func TestCallTimeout(t *testing.T) {
	w, net, _, e := setup(1)
	p := net.Params()
	p.CallTimeout = 2 * time.Second
	require.NoError(t, net.SetParams(p))
	var reply JunkReply
	start := w.Now()
	assert.False(t, callSync(t, w, e, "JunkServer.Slow", &JunkArgs{}, &reply), "an unanswered call times out")
	assert.Equal(t, 2*time.Second, w.Now()-start)
}

// workload makes many calls over an unreliable, reordering network with a
// server that dies and comes back.
func workload(seed int64) (*sim.World, *Network) {
	w, net, _, _ := setup(seed)
	net.Reliable(false)
	net.LongReordering(true)
	for i := range 20 {
		e := net.MakeEnd(i, w.NewHost("c"+strconv.Itoa(i)))
		net.Connect(i, 1000)
		net.Enable(i, true)
		var call func()
		call = func() {
			var reply string
			e.Call("JunkServer.Handler2", i, &reply, func(bool) { e.host.After(w.RandDuration(0, 50*time.Millisecond), call) })
		}
		call()
	}
	server := w.Hosts()[0]
	w.After(2*time.Second, func() { server.Kill() })
	w.After(3*time.Second, func() { server.Restart() })
	w.Run(10 * time.Second)
	return w, net
}

func TestDeterminism(t *testing.T) {
	simtest.Run(t, []int64{1, 2}, func(t *testing.T, seed int64) simtest.Result {
		w, net := workload(seed)
		_, other := workload(seed + 1000)
		require.Greater(t, net.GetTotalCount(), 500)
		assert.NotEqual(t, other.World().TraceHash(), w.TraceHash(), "another seed, another trace")
		return simtest.Result{World: w, Hosts: len(w.Hosts()), RPCs: net.GetTotalCount(), Bytes: net.GetTotalBytes()}
	})
}

func TestServiceTimeQueuesWork(t *testing.T) {
	w, net, js, e := setup(1)
	p := net.Params()
	p.Latency, p.Jitter, p.ServiceTime = time.Millisecond, 0, 10*time.Millisecond
	require.NoError(t, net.SetParams(p))
	var done []time.Duration
	for i := range 3 {
		var reply string
		e.Call("JunkServer.Handler2", i, &reply, func(ok bool) {
			require.True(t, ok)
			done = append(done, w.Now())
		})
	}
	w.Run(time.Second)
	// Requests arrive at 1 ms and queue for the server's CPU (done at 11,
	// 21, 31 ms); each reply arrives 1 ms later and takes the client's CPU
	// 10 ms more.
	assert.Equal(t, []time.Duration{22 * time.Millisecond, 32 * time.Millisecond, 42 * time.Millisecond}, done)
	assert.Equal(t, []int{0, 1, 2}, js.log2)
}

// When a host with several servers dies, their waiting calls fail in the
// order the servers were added, not in a map's order: the run stays a
// function of its seed.
func TestDeadHostFailsItsServersCallsInOrder(t *testing.T) {
	run := func() string {
		w := sim.NewWorld(1)
		net := MakeNetwork(w)
		h := w.NewHost("server")
		for _, name := range []string{"a", "b", "c", "d"} {
			srv := MakeServer(h)
			srv.AddService(MakeService(&JunkServer{}))
			net.AddServer(name, srv)
		}
		var log []string
		for _, name := range []string{"d", "b", "c", "a"} {
			e := net.MakeEnd(name, w.NewHost("client "+name))
			net.Connect(name, name)
			net.Enable(name, true)
			var reply JunkReply
			e.Call("JunkServer.Slow", &JunkArgs{}, &reply, func(ok bool) {
				log = append(log, fmt.Sprintf("%s %v %v", name, ok, w.Now()))
			})
		}
		w.Run(time.Second) // every call is waiting for an answer
		require.Empty(t, log)
		h.Kill()
		w.Run(time.Minute)
		require.Len(t, log, 4)
		return strings.Join(log, ", ")
	}
	first := run()
	for range 20 {
		require.Equal(t, first, run())
	}
}

func TestAServiceTypeMakesTheServicesMakeServiceMakes(t *testing.T) {
	st := TypeOf((*JunkServer)(nil))
	a, b := &JunkServer{}, &JunkServer{}
	made, typed := MakeService(a), st.Service(b)
	require.Len(t, typed.methods, len(made.methods))
	for name, m := range made.methods {
		require.Contains(t, typed.methods, name)
		assert.Equal(t, m.name, typed.methods[name].name)
		assert.Equal(t, m.argType, typed.methods[name].argType)
		assert.Equal(t, m.deferred, typed.methods[name].deferred)
	}
	assert.PanicsWithValue(t, "labrpc: ServiceType.Service: a labrpc.JunkServer, not the *labrpc.JunkServer of the type",
		func() { st.Service(JunkServer{}) })
	assert.PanicsWithError(t,
		"labrpc: BadServer.Leak: labrpc: cannot send *labrpc.Secret at hidden: field hidden of labrpc.Secret is unexported; only exported fields cross the network",
		func() { TypeOf(BadServer{}) }, "a type that cannot cross is caught at once")
}
