package logorder_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

func TestInspectShowsTheTidProcessed(t *testing.T) {
	d := deploy(t, 1, config(3, 1))
	ck := d.clerk()
	var tid int
	for i := range 3 {
		tid = d.put(t, ck, fmt.Sprintf("k%d", i), "v")
	}
	d.w.Run(time.Second)
	for i, h := range d.c.Hosts() {
		s := simtest.State(h)
		assert.Equal(t, strconv.Itoa(tid), s["logorder.processed"], "node %d", i)
		assert.Equal(t, "0", s["logorder.queued"], "node %d", i)
		assert.Equal(t, "0", s["logorder.pending"], "node %d", i)
		assert.Contains(t, s, "raft.role", "node %d", i)
	}
	host := d.c.HostOf(0, 0)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: host}))
	assert.Empty(t, simtest.State(d.c.Hosts()[host]))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: host}))
	d.w.Run(2 * time.Second)
	other := d.c.Hosts()[d.c.HostOf(0, 1)] // a new leader may have logged more since the kill
	assert.Equal(t, simtest.State(other)["logorder.processed"], simtest.State(d.c.Hosts()[host])["logorder.processed"], "the restarted node caught up")
}

func TestInspectChangesNothing(t *testing.T) {
	require.NoError(t, simtest.InspectingChangesNothing(func(run func(*sim.World, time.Duration)) *sim.World {
		d := deploy(t, 2, config(3, 1))
		ck := d.clerk()
		for i := range 3 {
			d.put(t, ck, fmt.Sprintf("k%d", i), "v")
			run(d.w, 500*time.Millisecond)
		}
		return d.w
	}))
}
