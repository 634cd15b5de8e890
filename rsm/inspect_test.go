package rsm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

func TestInspectShowsAppliedSessionsAndPending(t *testing.T) {
	w := newWorld(t, rsm.DefaultConfig())
	l := w.leader(t)
	host := w.c.Hosts()[w.c.HostOf(0, l)]
	var a, b outcome
	w.server(l).Submit(rsm.Session{Client: 1, Seq: 1}, int64(2), a.done)
	w.server(l).Submit(rsm.Session{Client: 2, Seq: 1}, int64(3), b.done)
	assert.Equal(t, "2", simtest.State(host)["rsm.pending"], "two requests wait on the leader")
	w.wait(t, &b, time.Second)
	w.w.Run(time.Second) // the followers apply too
	for i := range 3 {
		s := simtest.State(w.c.Hosts()[w.c.HostOf(0, i)])
		assert.Equal(t, s["raft.applied"], s["rsm.applied"], "server %d", i)
		assert.Equal(t, "2", s["rsm.sessions"], "server %d", i)
		assert.Equal(t, "0", s["rsm.pending"], "server %d", i)
	}
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Kill, Host: w.c.HostOf(0, l)}))
	assert.Empty(t, simtest.State(host))
	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Restart, Host: w.c.HostOf(0, l)}))
	w.w.Run(2 * time.Second)
	assert.Equal(t, "2", simtest.State(host)["rsm.sessions"], "the restarted server rebuilt its sessions from the log")
}

func TestInspectChangesNothing(t *testing.T) {
	require.NoError(t, simtest.InspectingChangesNothing(func(run func(*sim.World, time.Duration)) *sim.World {
		w := newWorld(t, rsm.DefaultConfig())
		var o outcome
		w.server(w.leader(t)).Submit(rsm.Session{Client: 1, Seq: 1}, int64(2), o.done)
		run(w.w, time.Second)
		require.Equal(t, 1, o.called)
		return w.w
	}))
}
