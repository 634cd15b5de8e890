package kvraft_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

func TestInspectShowsKeysAndTheLastOp(t *testing.T) {
	h := makeConfig(t, 1, 3, false, -1, kvraft.DefaultOptions())
	for _, host := range h.Hosts() {
		assert.Equal(t, "-", simtest.State(host)["kv.last"], "before any operation")
	}
	ck := h.MakeClient(h.All())
	ck.Put("a", "1")
	ck.Put("b", "2")
	ck.Append("a", "3")
	h.Sleep(time.Second) // every server applies
	for i, host := range h.Hosts() {
		s := simtest.State(host)
		assert.Equal(t, "2", s["kv.keys"], "server %d", i)
		assert.Equal(t, "Append a", s["kv.last"], "server %d", i)
		assert.Contains(t, s, "rsm.applied", "server %d", i)
		assert.Contains(t, s, "raft.role", "server %d", i)
	}
	h.Shutdown(0)
	assert.Empty(t, simtest.State(h.Hosts()[0]))
	h.StartServer(0)
	h.Sleep(2 * time.Second)
	assert.Equal(t, "2", simtest.State(h.Hosts()[0])["kv.keys"], "the restarted server replayed its log")
}

func TestInspectChangesNothing(t *testing.T) {
	require.NoError(t, simtest.InspectingChangesNothing(func(run func(*sim.World, time.Duration)) *sim.World {
		h := makeConfig(t, 2, 3, true, 300, kvraft.DefaultOptions())
		ck := h.MakeClient(h.All())
		for i := range 5 {
			ck.Append("k", string(rune('a'+i)))
		}
		run(h.World(), time.Second)
		ck.Check("k", "abcde")
		return h.World()
	}))
}
