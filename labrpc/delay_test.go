package labrpc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDelayRule(t *testing.T) {
	w, net, _, e := setup(1)
	var seen []Message
	net.SetDelayRule(func(m Message) time.Duration {
		seen = append(seen, m)
		if m.IsReply && m.Args == 7 {
			return time.Second
		}
		return 0
	})
	var reply string
	start := w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 6, &reply))
	fast := w.Now() - start
	assert.Less(t, fast, time.Millisecond, "a message the rule ignores takes the network's own time")

	start = w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 7, &reply))
	assert.Equal(t, "handler2-7", reply)
	assert.GreaterOrEqual(t, w.Now()-start, time.Second, "the rule delays the reply to args 7")
	assert.Less(t, w.Now()-start, time.Second+time.Millisecond)

	require.Len(t, seen, 4, "the rule sees each request and each reply")
	assert.Equal(t, Message{Method: "JunkServer.Handler2", Args: 7, IsReply: true, From: w.Hosts()[0], To: w.Hosts()[1]}, seen[3])
	assert.Equal(t, Message{Method: "JunkServer.Handler2", Args: 7, From: w.Hosts()[1], To: w.Hosts()[0]}, seen[2])

	net.SetDelayRule(func(m Message) time.Duration {
		if !m.IsReply {
			return 500 * time.Millisecond
		}
		return 0
	})
	start = w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 8, &reply))
	assert.GreaterOrEqual(t, w.Now()-start, 500*time.Millisecond, "the rule delays the request")
	assert.Less(t, w.Now()-start, 500*time.Millisecond+time.Millisecond)

	net.SetDelayRule(func(Message) time.Duration { return -time.Second })
	assert.PanicsWithValue(t, "labrpc: delay rule returned -1s for JunkServer.Handler2 (reply false): delays cannot be negative",
		func() { e.Call("JunkServer.Handler2", 1, &reply, func(bool) {}) })
}

// Watchers see every request and reply, in the order they were added,
// beside a delay rule that still delays; a stopped watcher sees no more.
func TestWatchers(t *testing.T) {
	w, net, _, e := setup(1)
	var order []string
	var seen []Message
	stopA := net.Watch(func(m Message) {
		order = append(order, "a")
		seen = append(seen, m)
	})
	net.Watch(func(Message) { order = append(order, "b") })
	net.SetDelayRule(func(m Message) time.Duration {
		order = append(order, "rule")
		if m.IsReply {
			return time.Second
		}
		return 0
	})
	var reply string
	start := w.Now()
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 6, &reply))
	assert.GreaterOrEqual(t, w.Now()-start, time.Second, "the rule still delays with watchers on")
	assert.Equal(t, []string{"rule", "a", "b", "rule", "a", "b"}, order, "the rule, then the watchers in order, for the request and the reply")
	assert.Equal(t, []Message{
		{Method: "JunkServer.Handler2", Args: 6, From: w.Hosts()[1], To: w.Hosts()[0]},
		{Method: "JunkServer.Handler2", Args: 6, IsReply: true, From: w.Hosts()[0], To: w.Hosts()[1]},
	}, seen)
	stopA()
	stopA() // twice is harmless
	net.SetDelayRule(nil)
	order = nil
	require.True(t, callSync(t, w, e, "JunkServer.Handler2", 7, &reply))
	assert.Equal(t, []string{"b", "b"}, order, "a stopped watcher sees nothing; with no rule, the watchers still see")
	assert.PanicsWithValue(t, "labrpc: Watch with a nil watcher", func() { net.Watch(nil) })
}
