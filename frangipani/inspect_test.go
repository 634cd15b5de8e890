package frangipani_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

func TestInspectShowsLeasesAndDirtyKeys(t *testing.T) {
	d := deploy(t, 1, frangipani.DefaultConfig())
	a, ah := d.clerk(t, "a")
	assert.Equal(t, map[string]string{"clerk.held": "0", "clerk.dirty": "0", "clerk.keys": "-"}, simtest.State(ah))
	d.put(t, a, "x", "1")
	d.append(t, a, "y", "2")
	assert.Equal(t, map[string]string{"clerk.held": "2", "clerk.dirty": "2", "clerk.keys": "x:x* y:x*"}, simtest.State(ah), "two exclusive locks, both with writes not flushed")
	require.NoError(t, d.sync(t, a, 10*time.Second))
	assert.Equal(t, "0", simtest.State(ah)["clerk.dirty"], "Sync flushed the writes")

	b, bh := d.clerk(t, "b")
	v, _ := d.get(t, b, "x")
	require.Equal(t, "1", v)
	d.w.Run(time.Second) // every replica applies the release
	assert.Equal(t, "1", simtest.State(ah)["clerk.held"], "a gave up x for b")
	assert.Equal(t, "0", simtest.State(bh)["clerk.held"], "the lock service performed b's read of a key another used last")
	for i := range 3 {
		s := simtest.State(d.c.Hosts()[d.c.HostOf(0, i)])
		assert.Equal(t, "2", s["lock.keys"], "server %d", i)
		assert.Equal(t, "1", s["lock.holders"], "server %d: a holds y", i)
		assert.Equal(t, "0", s["lock.waiting"], "server %d", i)
		assert.Contains(t, s, "raft.role", "server %d", i)
	}
	host := d.c.HostOf(0, 0)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: host}))
	assert.Empty(t, simtest.State(d.c.Hosts()[host]))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: host}))
	d.w.Run(2 * time.Second)
	assert.Equal(t, "1", simtest.State(d.c.Hosts()[host])["lock.holders"], "the restarted server rebuilt its table from the log")
}

func TestInspectChangesNothing(t *testing.T) {
	require.NoError(t, simtest.InspectingChangesNothing(func(run func(*sim.World, time.Duration)) *sim.World {
		d := deploy(t, 2, frangipani.DefaultConfig())
		a, _ := d.clerk(t, "a")
		b, _ := d.clerk(t, "b")
		for _, ck := range []*frangipani.Clerk{a, b, a} {
			d.append(t, ck, "x", "1")
			run(d.w, time.Second)
		}
		return d.w
	}))
}
