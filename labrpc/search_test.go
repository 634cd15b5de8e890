package labrpc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

// messages returns the enabled events that are messages.
func messages(w *sim.World) []sim.Choice {
	var ms []sim.Choice
	for _, c := range w.Enabled(nil) {
		if c.Message {
			ms = append(ms, c)
		}
	}
	return ms
}

func TestRequestsAndRepliesAreMessages(t *testing.T) {
	w, _, _, e := setup(1)
	var got string
	ok := false
	e.Call("JunkServer.Handler2", 7, &got, func(r bool) { ok = r })
	ms := messages(w)
	require.Len(t, ms, 1)
	req := ms[0].Info
	assert.Equal(t, "JunkServer.Handler2", req.What)
	assert.Equal(t, e.host.ID(), req.From)
	assert.NotEqual(t, req.From, req.To)
	d := req.Digest()
	w.Choose(ms[0], sim.Deliver)

	ms = messages(w)
	require.Len(t, ms, 1)
	rep := ms[0].Info
	assert.Equal(t, "JunkServer.Handler2 reply", rep.What)
	assert.Equal(t, req.From, rep.To)
	assert.NotEqual(t, d, rep.Digest(), "the request (7) and the reply (handler2-7) digest apart")
	w.Choose(ms[0], sim.Deliver)
	assert.True(t, ok)
	assert.Equal(t, "handler2-7", got)

	// The same arguments digest alike; others do not (the two calls may
	// arrive in either order).
	e.Call("JunkServer.Handler2", 7, &got, func(bool) {})
	e.Call("JunkServer.Handler2", 8, &got, func(bool) {})
	ms = messages(w)
	require.Len(t, ms, 2)
	a, b := ms[0].Info.Digest(), ms[1].Info.Digest()
	assert.NotEqual(t, a, b)
	assert.True(t, a == d || b == d, "one of %x and %x is the digest %x of 7", a, b, d)
}

func TestDroppedMessagesFailTheCall(t *testing.T) {
	for _, reply := range []bool{false, true} {
		w, _, js, e := setup(1)
		var got string
		answered, ok := false, true
		e.Call("JunkServer.Handler2", 7, &got, func(r bool) { answered, ok = true, r })
		if reply {
			w.Choose(messages(w)[0], sim.Deliver)
		}
		w.Choose(messages(w)[0], sim.Drop)
		w.Run(time.Minute)
		assert.True(t, answered, "reply dropped: %t", reply)
		assert.False(t, ok)
		assert.Equal(t, reply, len(js.log2) == 1, "the handler ran only if the request got through")
	}
}

func TestADuplicatedRequestIsHandledTwiceAndAnsweredOnce(t *testing.T) {
	w, _, js, e := setup(1)
	var got string
	answers := 0
	e.Call("JunkServer.Handler2", 7, &got, func(ok bool) { answers++ })
	ms := messages(w)
	require.Len(t, ms, 1)
	require.True(t, ms[0].Info.Duplicable)
	w.Choose(ms[0], sim.Duplicate)
	assert.Equal(t, []int{7}, js.log2)
	ms = messages(w)
	require.Len(t, ms, 2, "the copy and the reply")
	for _, m := range ms {
		if m.Info.What == "JunkServer.Handler2" {
			assert.False(t, m.Info.Duplicable, "a call is duplicated once")
		}
	}
	w.Run(time.Minute)
	assert.Equal(t, []int{7, 7}, js.log2, "the handler ran for each delivery")
	assert.Equal(t, 1, answers)
	assert.Equal(t, "handler2-7", got)
}
