package logorder_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeadOwnerAvoided kills one of a key's two owners. A clerk's read
// sent to it fails, and for twice the timeout after that the clerk asks
// the other owners only; then it tries the dead one again. (Only the
// reads' calls are counted: a Begin may wait for a server whose own
// fetches found the dead node, and a read sent to a live owner behind the
// snapshot waits for it, as slow as one sent to the dead node.)
func TestDeadOwnerAvoided(t *testing.T) {
	for _, timeout := range []time.Duration{100 * time.Millisecond} {
		cfg := config(3, 2)
		d := deploy(t, 1, cfg)
		ck := d.clerk()
		d.put(t, ck, "a", "elected")
		ck.SetTimeout(timeout)
		leader, ok := d.c.Leader(0)
		require.True(t, ok)
		dead := (leader + 1) % 3
		key := keyOn(dead, cfg.Layout, "k")
		d.put(t, ck, key, "v")
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, dead)}))
		asked := &callsTo{to: fmt.Sprintf("→nami/%d Server.Get ", dead)}
		d.w.SetTraceWriter(asked)
		defer d.w.SetTraceWriter(nil)
		slow := func() bool { // a read that asked the dead node
			tx := d.begin(t, ck, ck.LastTid())
			asked.n = 0
			v, _ := d.get(t, tx, key)
			require.Equal(t, "v", v)
			return asked.n > 0
		}
		n := 0
		for range 12 {
			if slow() {
				n++
			}
		}
		assert.LessOrEqual(t, n, 1, "timeout %v: within twice the timeout of its first silence, the dead owner is asked no more", timeout)
		n = 0
		for range 20 {
			d.w.Run(2*timeout + time.Millisecond)
			if slow() {
				n++
			}
		}
		assert.Greater(t, n, 0, "timeout %v: once twice the timeout has passed, the dead owner may be asked again", timeout)
	}
}

// callsTo counts the lines of a world's trace that show a call sent to
// the server and method in to (the dead node's end is gone, so no
// watcher sees a call to it; the trace does).
type callsTo struct {
	to string
	n  int
}

func (c *callsTo) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		if strings.Contains(line, " call #") && strings.Contains(line, c.to) {
			c.n++
		}
	}
	return len(p), nil
}

// A node that answers a Begin or a read Far (too far behind to serve it
// in time) is avoided for twice the timeout: the clerk's next calls go to
// other nodes, and once the time has passed it may be asked again.
func TestFarBehindOwnerAvoided(t *testing.T) {
	cfg := config(3, 2)
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	timeout := 100 * time.Millisecond
	ck.SetTimeout(timeout)
	_, cut, _ := d.cutOff(t, ck)
	key := keyOn(cut, cfg.Layout, "k")
	for i := range 300 {
		d.put(t, ck, key, fmt.Sprint(i))
	}
	asked, began := 0, 0
	cutHost := d.w.Hosts()[d.c.HostOf(0, cut)]
	stop := d.c.Net().Watch(func(m labrpc.Message) {
		switch {
		case m.IsReply || m.To != cutHost:
		case m.Method == "Server.Get":
			asked++
		case m.Method == "Server.Recent":
			began++
		}
	})
	defer stop()
	for range 12 {
		d.begin(t, ck, ck.LastTid())
	}
	assert.LessOrEqual(t, began, 1, "a Begin asks it once at most within twice the timeout")
	d.w.Run(2*timeout + time.Millisecond)
	read := func() {
		v, _ := d.get(t, d.begin(t, ck, ck.LastTid()), key)
		require.Equal(t, "299", v)
	}
	for range 12 {
		read()
	}
	assert.LessOrEqual(t, asked, 1, "asked once at most within twice the timeout")
	asked = 0
	for range 20 {
		d.w.Run(2*timeout + time.Millisecond)
		read()
	}
	assert.Positive(t, asked, "asked again once twice the timeout has passed")
}
