package rsm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// cutReplies starts a call through r to w's leader and cuts every
// server's replies to the client's host: the servers receive each try and
// none of their answers arrive, so the call never ends. It returns the
// call's cancel and what reports whether done was called.
func (w *world) cutReplies(t *testing.T, r *rsm.Router, client *sim.Host) (cancel func(), answered func() bool) {
	t.Helper()
	for i := range 3 {
		require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Cut, Host: w.c.HostOf(0, i), To: client.ID()}))
	}
	done := false
	cancel = r.Call("Counter.Add", &AddArgs{Session: rsm.Session{Client: 1, Seq: 1}, N: 1}, func() any { return &AddReply{} },
		func(r any) bool { return r.(*AddReply).Wrong }, func(any) { done = true })
	return cancel, func() bool { return done }
}

// TestRouterBacksOff sends a call whose answers are all lost: with a
// fixed pause it tries about a hundred times a second for ever; with a
// backoff from 10 ms up to 200 ms, the tries thin out to one every 100–200
// ms (a round of three servers, then a pause).
func TestRouterBacksOff(t *testing.T) {
	tries := func(backoff bool) (first, last int) {
		w := newWorld(t, rsm.DefaultConfig())
		w.leader(t)
		client := w.c.NewClient("c")
		r := rsm.MakeRouter(client, w.c.Ends(client, 0, nil))
		if backoff {
			r.SetBackoff(10*time.Millisecond, 200*time.Millisecond)
		}
		_, answered := w.cutReplies(t, r, client)
		start := w.calls
		w.w.Run(time.Second)
		first = w.calls - start
		w.w.Run(2 * time.Second)
		last = w.calls - start - first
		assert.False(t, answered())
		return first, last / 2
	}
	fixedFirst, fixedLast := tries(false)
	assert.Greater(t, fixedFirst, 250, "a round of three every 10 ms or so")
	assert.Greater(t, fixedLast, 250, "and so for ever")
	first, last := tries(true)
	assert.Less(t, first, 60, "the pauses grew within the first second")
	assert.GreaterOrEqual(t, last, 3*5, "a round at least every 200 ms")
	assert.LessOrEqual(t, last, 3*10+3, "a round at most every 100 ms: a pause of at least half of 200 ms")
}

// TestRouterCancel cancels a call whose answers are lost: nothing more is
// sent and done is never called. Cancelling a call that ended changes
// nothing.
func TestRouterCancel(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	w.leader(t)
	client := w.c.NewClient("c")
	r := rsm.MakeRouter(client, w.c.Ends(client, 0, nil))
	cancel, answered := w.cutReplies(t, r, client)
	w.w.Run(100 * time.Millisecond)
	require.Positive(t, w.calls)
	cancel()
	calls := w.calls
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Heal}))
	w.w.Run(time.Second)
	assert.Equal(t, calls, w.calls, "nothing sent after the cancel")
	assert.False(t, answered(), "done is not called")

	done := 0
	cancel = r.Call("Counter.Add", &AddArgs{Session: rsm.Session{Client: 1, Seq: 2}, N: 1}, func() any { return &AddReply{} },
		func(r any) bool { return r.(*AddReply).Wrong }, func(any) { done++ })
	require.True(t, w.w.RunUntil(func() bool { return done == 1 }, time.Second))
	cancel()
	w.w.Run(time.Second)
	assert.Equal(t, 1, done)
}

func TestRouterBackoffBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	r := rsm.MakeRouter(w.NewHost("c"), make([]*labrpc.ClientEnd, 1))
	assert.PanicsWithValue(t, "rsm: backoff from 0s up to 1s: want 0 < first <= max", func() { r.SetBackoff(0, time.Second) })
	assert.PanicsWithValue(t, "rsm: backoff from 2s up to 1s: want 0 < first <= max", func() { r.SetBackoff(2*time.Second, time.Second) })
	r.SetBackoff(time.Second, time.Second)
}
