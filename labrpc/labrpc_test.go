package labrpc

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

type JunkArgs struct{ X int }
type JunkReply struct{ X string }

type JunkServer struct {
	log1    []string
	log2    []int
	calls   int
	pending []*Deferred
	replies []*JunkReply
}

func (js *JunkServer) Handler1(args string, reply *int) {
	js.log1 = append(js.log1, args)
	*reply, _ = strconv.Atoi(args)
}

func (js *JunkServer) Handler2(args int, reply *string) {
	js.log2 = append(js.log2, args)
	*reply = "handler2-" + strconv.Itoa(args)
}

func (js *JunkServer) Handler4(args *JunkArgs, reply *JunkReply) { reply.X = "pointer" }

func (js *JunkServer) Handler5(args JunkArgs, reply *JunkReply) { reply.X = "no pointer" }

func (js *JunkServer) Handler6(args string, reply *int) {
	js.calls++
	*reply = len(args)
}

// Slow never answers by itself: the test answers through the Deferred.
func (js *JunkServer) Slow(args *JunkArgs, reply *JunkReply, d *Deferred) {
	reply.X = "slow-" + strconv.Itoa(args.X)
	js.pending = append(js.pending, d)
	js.replies = append(js.replies, reply)
}

// NotRPC has the wrong shape and is ignored.
func (js *JunkServer) NotRPC() int { return 0 }

// setup returns a world and network with a JunkServer named 1000 on its own
// host, and a client end "c" on a client host connected to it.
func setup(seed int64) (*sim.World, *Network, *JunkServer, *ClientEnd) {
	w := sim.NewWorld(seed)
	net := MakeNetwork(w)
	js := &JunkServer{}
	srv := MakeServer(w.NewHost("server"))
	srv.AddService(MakeService(js))
	net.AddServer(1000, srv)
	e := net.MakeEnd("c", w.NewHost("client"))
	net.Connect("c", 1000)
	net.Enable("c", true)
	return w, net, js, e
}

// callSync makes one call and runs the world until it completes.
func callSync(t *testing.T, w *sim.World, e *ClientEnd, meth string, args, reply any) bool {
	t.Helper()
	done, ok := false, false
	e.Call(meth, args, reply, func(k bool) { done, ok = true, k })
	require.True(t, w.RunUntil(func() bool { return done }, time.Minute), "call %s never completed", meth)
	return ok
}

// serve returns a world and network where the end "e", outside every host,
// is connected to the server "s", outside every host too, which serves rcvr.
func serve(rcvr any) (*sim.World, *Network, *ClientEnd) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	srv := MakeServer(nil)
	srv.AddService(MakeService(rcvr))
	net.AddServer("s", srv)
	e := net.MakeEnd("e", nil)
	net.Connect("e", "s")
	net.Enable("e", true)
	return w, net, e
}

func TestBasic(t *testing.T) {
	w, _, js, e := setup(1)
	var reply string
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 111, &reply))
	assert.Equal(t, "handler2-111", reply)
	var n int
	require.True(t, callSync(t, w, e, "JunkServer.Handler1", "9099", &n))
	assert.Equal(t, 9099, n)
	assert.Equal(t, []int{111}, js.log2)
	assert.Equal(t, []string{"9099"}, js.log1)
}

func TestTypes(t *testing.T) {
	w, _, _, e := setup(1)
	var r1, r2 JunkReply
	require.True(t, callSync(t, w, e, "JunkServer.Handler4", &JunkArgs{}, &r1))
	assert.Equal(t, "pointer", r1.X)
	require.True(t, callSync(t, w, e, "JunkServer.Handler5", JunkArgs{}, &r2))
	assert.Equal(t, "no pointer", r2.X)
}

func TestDisconnect(t *testing.T) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	srv := MakeServer(w.NewHost("s"))
	js := &JunkServer{}
	srv.AddService(MakeService(js))
	net.AddServer("server99", srv)
	e := net.MakeEnd("end1-99", nil)

	var reply string
	assert.False(t, callSync(t, w, e, "JunkServer.Handler2", 111, &reply), "an unconnected end must fail")
	net.Connect("end1-99", "server99")
	assert.False(t, callSync(t, w, e, "JunkServer.Handler2", 111, &reply), "a disabled end must fail")
	assert.Empty(t, js.log2)
	net.Enable("end1-99", true)
	var n int
	require.True(t, callSync(t, w, e, "JunkServer.Handler1", "9099", &n))
	assert.Equal(t, 9099, n)
}

func TestCounts(t *testing.T) {
	w, net, _, e := setup(1)
	for i := range 17 {
		var reply string
		require.True(t, callSync(t, w, e, "JunkServer.Handler2", i, &reply))
		assert.Equal(t, "handler2-"+strconv.Itoa(i), reply)
	}
	assert.Equal(t, 17, net.GetCount(1000))
	assert.Equal(t, 17, net.GetTotalCount())
	assert.Equal(t, 0, net.GetCount("no such server"))
}

func TestBytes(t *testing.T) {
	w, net, _, e := setup(1)
	for range 17 {
		args := string(make([]byte, 128))
		var reply int
		require.True(t, callSync(t, w, e, "JunkServer.Handler6", args, &reply))
		assert.Equal(t, 128, reply)
	}
	// A 128-byte string costs its bytes plus a length prefix of 2.
	assert.EqualValues(t, 17*130, net.GetTotalBytes())
	assert.EqualValues(t, 17*2, net.GetTotalReplyBytes(), "an int reply of 128 is a 2-byte varint")

	for range 17 {
		args := string(make([]byte, 1))
		var reply int
		require.True(t, callSync(t, w, e, "JunkServer.Handler6", args, &reply))
	}
	assert.EqualValues(t, 17*130+17*2, net.GetTotalBytes())
}

func TestConcurrentMany(t *testing.T) {
	w := sim.NewWorld(1)
	net := MakeNetwork(w)
	srv := MakeServer(w.NewHost("s"))
	srv.AddService(MakeService(&JunkServer{}))
	net.AddServer(1000, srv)
	const nclients, nrpcs = 20, 10
	good := 0
	for i := range nclients {
		e := net.MakeEnd(i, w.NewHost("c"+strconv.Itoa(i)))
		net.Connect(i, 1000)
		net.Enable(i, true)
		for j := range nrpcs {
			arg := i*100 + j
			var reply string
			e.Call("JunkServer.Handler2", arg, &reply, func(ok bool) {
				if ok && reply == "handler2-"+strconv.Itoa(arg) {
					good++
				}
			})
		}
	}
	w.Run(time.Second)
	assert.Equal(t, nclients*nrpcs, good)
	assert.Equal(t, nclients*nrpcs, net.GetCount(1000))
}

func TestUnreliable(t *testing.T) {
	simtest.Run(t, []int64{1, 2, 3}, func(t *testing.T, seed int64) simtest.Result {
		w, net, _, _ := setup(seed)
		net.Reliable(false)
		const nclients = 300
		var succeeded, failed int
		for i := range nclients {
			e := net.MakeEnd(i, nil)
			net.Connect(i, 1000)
			net.Enable(i, true)
			var reply string
			e.Call("JunkServer.Handler2", 100+i, &reply, func(ok bool) {
				if ok {
					assert.Equal(t, "handler2-"+strconv.Itoa(100+i), reply)
					succeeded++
				} else {
					failed++
				}
			})
		}
		w.Run(time.Second)
		require.Equal(t, nclients, succeeded+failed, "every call completes")
		// 10% request loss and 10% reply loss: 81% succeed.
		assert.InDelta(t, 0.81*nclients, succeeded, 0.06*nclients)
		return simtest.Result{World: w, Hosts: 2, RPCs: net.GetTotalCount(), Bytes: net.GetTotalBytes()}
	})
}

func TestConcurrentOne(t *testing.T) {
	w, net, js, e := setup(1)
	const nrpcs = 20
	good := 0
	for i := range nrpcs {
		var reply string
		e.Call("JunkServer.Handler2", 100+i, &reply, func(ok bool) {
			if ok && reply == "handler2-"+strconv.Itoa(100+i) {
				good++
			}
		})
	}
	w.Run(time.Second)
	assert.Equal(t, nrpcs, good)
	assert.Len(t, js.log2, nrpcs)
	assert.Equal(t, nrpcs, net.GetCount(1000))
}

// TestRegression1 checks that calls made while an end is disabled, which fail
// only after long delays, do not hold up calls made once it is enabled again.
func TestRegression1(t *testing.T) {
	w, net, js, e := setup(1)
	net.LongDelays(true)
	net.Enable("c", false)
	failed := 0
	for i := range 20 {
		var reply string
		e.Call("JunkServer.Handler2", i, &reply, func(ok bool) {
			assert.False(t, ok)
			failed++
		})
	}
	w.Run(10 * time.Millisecond)
	net.Enable("c", true)
	start := w.Now()
	var reply string
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 99, &reply))
	assert.Less(t, w.Now()-start, 10*time.Millisecond, "an enabled end answers at network speed")
	assert.Equal(t, []int{99}, js.log2)
	w.Run(10 * time.Second)
	assert.Equal(t, 20, failed, "the disabled calls failed eventually")
}

// TestKilled checks that a call stuck in a server fails when the server is
// deleted or its host is killed, and that a late reply never arrives.
func TestKilled(t *testing.T) {
	for _, how := range []string{"DeleteServer", "Kill"} {
		t.Run(how, func(t *testing.T) {
			w, net, js, e := setup(1)
			var reply JunkReply
			done, ok := false, false
			e.Call("JunkServer.Slow", &JunkArgs{X: 7}, &reply, func(k bool) { done, ok = true, k })
			require.True(t, w.RunUntil(func() bool { return len(js.pending) == 1 }, time.Second))
			w.Run(time.Second)
			require.False(t, done, "the handler has not answered")
			if how == "Kill" {
				w.Hosts()[0].Kill()
			} else {
				net.DeleteServer(1000)
			}
			require.True(t, w.RunUntil(func() bool { return done }, 200*time.Millisecond))
			assert.False(t, ok)
			js.pending[0].Reply() // the late reply goes nowhere
			w.Run(time.Second)
			assert.Empty(t, reply.X)
		})
	}
}

func TestDeferredReply(t *testing.T) {
	w, net, js, e := setup(1)
	p := net.Params()
	p.Jitter = 0 // keep the two calls in order
	require.NoError(t, net.SetParams(p))
	var r1, r2 JunkReply
	var order []int
	e.Call("JunkServer.Slow", &JunkArgs{X: 1}, &r1, func(ok bool) { require.True(t, ok); order = append(order, 1) })
	e.Call("JunkServer.Slow", &JunkArgs{X: 2}, &r2, func(ok bool) { require.True(t, ok); order = append(order, 2) })
	w.Run(time.Second)
	require.Len(t, js.pending, 2)
	assert.Empty(t, order)
	js.replies[1].X = "second first"
	js.pending[1].Reply()
	js.pending[1].Reply() // a second answer is ignored
	js.replies[1].X = "changed after reply"
	js.pending[0].Reply()
	w.Run(time.Second)
	assert.Equal(t, []int{2, 1}, order)
	assert.Equal(t, "slow-1", r1.X)
	assert.Equal(t, "second first", r2.X, "the reply is copied when sent")
}

func TestCallerDeathDropsItsCallbacks(t *testing.T) {
	w, _, js, e := setup(1)
	var reply string
	called := false
	e.Call("JunkServer.Handler2", 5, &reply, func(bool) { called = true })
	w.Hosts()[1].Kill() // the client dies while its request is in flight
	w.Run(time.Second)
	assert.Equal(t, []int{5}, js.log2, "the request still reaches the server")
	assert.False(t, called, "no callback runs for a dead incarnation")
	w.Hosts()[1].Restart()
	w.Run(time.Second)
	assert.False(t, called)
}

type Inner struct{ V []int }

type DeepArgs struct {
	P *Inner
	M map[string][]byte
	I any
}

type Capture struct{ got *DeepArgs }

func (c *Capture) Take(args *DeepArgs, reply *int) { c.got = args }

func TestArgsAreCopied(t *testing.T) {
	c := &Capture{}
	w, _, e := serve(c)

	args := &DeepArgs{P: &Inner{V: []int{1, 2}}, M: map[string][]byte{"k": []byte("v")}, I: Inner{V: []int{3}}}
	var reply int
	require.True(t, callSync(t, w, e, "Capture.Take", args, &reply))
	require.NotNil(t, c.got)
	args.P.V[0] = 100
	args.M["k"][0] = 'X'
	args.I.(Inner).V[0] = 300
	assert.Equal(t, []int{1, 2}, c.got.P.V)
	assert.Equal(t, []byte("v"), c.got.M["k"])
	assert.Equal(t, []int{3}, c.got.I.(Inner).V)
	assert.NotSame(t, args.P, c.got.P)
}

func TestLatencyAndBandwidth(t *testing.T) {
	w, net, _, e := setup(1)
	p := DefaultParams()
	p.Latency, p.Jitter, p.Bandwidth = 5*time.Millisecond, 0, 10_000_000 // 10 MB/s
	require.NoError(t, net.SetParams(p))

	var n int
	start := w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler6", "x", &n))
	assert.Equal(t, 10*time.Millisecond+2*100*time.Nanosecond+100*time.Nanosecond, w.Now()-start,
		"two latencies plus 2+1 bytes at 100 ns a byte")

	big := string(make([]byte, 1_000_000))
	start = w.Now()
	done := 0
	for range 2 {
		e.Call("JunkServer.Handler6", big, &n, func(ok bool) { require.True(t, ok); done++ })
	}
	require.True(t, w.RunUntil(func() bool { return done == 2 }, time.Minute))
	assert.InDelta(t, (200*time.Millisecond + 10*time.Millisecond).Seconds(), (w.Now() - start).Seconds(), 0.001,
		"two 1 MB requests queue on the client's 10 MB/s uplink")
}

// The trace tells which method each call was for.
func TestTheTraceFoldsEachCallsMethod(t *testing.T) {
	trace := func(meths ...string) uint64 {
		w, _, _, e := setup(1)
		for _, m := range meths {
			var reply int
			require.True(t, callSync(t, w, e, m, "1", &reply))
			require.Equal(t, 1, reply, "both methods answer alike, so only their names tell them apart")
		}
		return w.TraceHash()
	}
	one, six := "JunkServer.Handler1", "JunkServer.Handler6"
	hashes := map[uint64][]string{}
	for _, ms := range [][]string{{one, one}, {one, six}, {six, one}, {six, six}} {
		h := trace(ms...)
		require.NotContains(t, hashes, h, "%v traces like %v", ms, hashes[h])
		hashes[h] = ms
	}
}

// TestTraceFollowsACall checks that a traced world writes each step of a
// call: sent, delivered, answered, returned.
func TestTraceFollowsACall(t *testing.T) {
	w, _, _, e := setup(1)
	var trace strings.Builder
	w.SetTraceWriter(&trace)
	var reply int
	require.True(t, callSync(t, w, e, "JunkServer.Handler6", "four", &reply))
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	require.Len(t, lines, 4, trace.String())
	for i, want := range []string{
		"call #1 c→1000 JunkServer.Handler6 ",
		"call #1 JunkServer.Handler6 delivered to 1000",
		"call #1 JunkServer.Handler6 answered by 1000 ",
		"call #1 JunkServer.Handler6 returns to c ok=true",
	} {
		assert.Contains(t, lines[i], want)
	}
}

// TestMessagesWaitForTheDisk gives both hosts a disk that takes time per
// save: a request leaves its host once the host's disk has written the
// saves made before it, so does a reply, and a save made after a message
// left does not hold it back.
func TestMessagesWaitForTheDisk(t *testing.T) {
	w, net, js, e := setup(1)
	p := DefaultParams()
	p.Latency, p.Jitter = 5*time.Millisecond, 0
	require.NoError(t, net.SetParams(p))
	client, server := w.Hosts()[1], w.Hosts()[0]
	require.NoError(t, client.SetDiskLatency(3*time.Millisecond))
	require.NoError(t, server.SetDiskLatency(4*time.Millisecond))
	assert.ErrorContains(t, server.SetDiskLatency(-time.Millisecond), "disk latency -1ms for host server is negative")

	client.Persister().Save([]byte("a"), nil)
	client.Persister().Save([]byte("b"), nil) // the disk is busy until 6 ms
	var reply JunkReply
	done := false
	e.Call("JunkServer.Slow", &JunkArgs{X: 1}, &reply, func(ok bool) { done = ok })
	client.Persister().Save([]byte("c"), nil) // after the call left: it does not wait for this one
	require.True(t, w.RunUntil(func() bool { return len(js.pending) == 1 }, time.Second))
	assert.Equal(t, 11*time.Millisecond, w.Now(), "6 ms of disk, then 5 ms on the wire")
	server.PersisterNamed("state").Save([]byte("x"), nil) // the server saves before it answers
	js.pending[0].Reply()
	require.True(t, w.RunUntil(func() bool { return done }, time.Second))
	assert.Equal(t, 20*time.Millisecond, w.Now(), "4 ms of the server's disk, then 5 ms back")
	assert.Equal(t, 15*time.Millisecond, server.DiskFree())
}

// TestDiskExemptMethods lets the methods named leave without waiting for
// the sender's disk; a call of another method waits.
func TestDiskExemptMethods(t *testing.T) {
	w, net, _, e := setup(1)
	p := DefaultParams()
	p.Latency, p.Jitter = 5*time.Millisecond, 0
	require.NoError(t, net.SetParams(p))
	client := w.Hosts()[1]
	require.NoError(t, client.SetDiskLatency(3*time.Millisecond))
	net.SetDiskExempt("JunkServer.Handler6")
	var n int
	client.Persister().Save([]byte("a"), nil)
	start := w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler6", "x", &n))
	assert.Equal(t, 10*time.Millisecond, w.Now()-start, "Handler6 is exempt: two latencies")
	client.Persister().Save([]byte("b"), nil)
	start = w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler1", "x", &n))
	assert.Equal(t, 13*time.Millisecond, w.Now()-start, "Handler1 waits for the write first")
}
