package logorder_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node killed for a few seconds under load comes back more than
// Versions tids behind its co-owners. It still catches up: the others
// keep the versions it will ask for (back to the oldest snapshot any node
// would restart from), and every node processes the whole log once the
// clients stop.
func TestFarBehindCatchesUp(t *testing.T) {
	t.Parallel()
	simtest.Run(t, simtest.Seeds(t, 1, 2), func(t *testing.T, seed int64) simtest.Result {
		cfg := config(5, 2)
		cfg.Versions, cfg.SnapshotEvery = 16, 8
		d := deploy(t, seed, cfg)
		run := d.transfers(4)
		d.w.Run(time.Second)
		leader, ok := d.c.Leader(0)
		require.True(t, ok)
		victim := d.c.HostOf(0, (leader+1)%5)
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: victim}))
		d.w.Run(3 * time.Second)
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: victim}))
		behind := d.server((leader + 1) % 5).Processed()
		d.w.Run(time.Second)
		run.Stop()
		drained := d.w.RunUntil(func() bool { return d.d.Drained(d.c) && run.Finished() }, 10*time.Second)
		last := d.server(leader).Processed()
		assert.Greater(t, last-behind, 2*cfg.Versions, "the node came back further behind than the versions kept")
		assert.True(t, drained, "every node processed the whole log: node %d is at %d of %d", (leader+1)%5, d.server((leader+1)%5).Processed(), last)
		assert.Empty(t, d.disagreement())
		return d.result()
	})
}
