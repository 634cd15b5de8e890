package logorder_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node killed and restarted restores its own snapshot, processes the
// rest of the log again (deciding each transaction as it did before),
// and serves its keys' newest values; meanwhile the others went on with
// transactions that do not need it.
func TestRestartRestoresSnapshotAndCatchesUp(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		cfg := config(3, 1)
		cfg.SnapshotEvery = 4
		d := deploy(t, seed, cfg)
		ck := d.clerk()
		mine, other := keyOn(1, cfg.Layout, "m"), keyOn(2, cfg.Layout, "o")
		for i := range 10 {
			d.put(t, ck, mine, fmt.Sprint(i))
		}
		before := d.server(1).Processed()
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, 1)}))
		for i := range 10 {
			d.put(t, ck, other, fmt.Sprint(i))
		}
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, 1)}))
		restored := d.server(1).Processed()
		assert.Positive(t, restored, "the node restored a snapshot")
		assert.LessOrEqual(t, restored, before)
		d.put(t, ck, mine, "last")
		assert.True(t, d.w.RunUntil(func() bool { return d.server(1).Processed() >= ck.LastTid() }, time.Second), "it caught up")
		v, _ := d.get(t, d.begin(t, ck, ck.LastTid()), mine)
		assert.Equal(t, "last", v)
		assert.Empty(t, d.disagreement())
		return d.result()
	})
}
