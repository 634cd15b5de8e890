package logorder_test

import (
	"fmt"
	"testing"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node's reads reach between Versions and 2·Versions tids into the
// past: it lets old versions pile up until reads as of 2·Versions tids
// before its newest are still served, and at the next tid collects back
// to Versions tids before it. A read as of the horizon is served; one as
// of the tid before gets ErrTooOld. (A snapshot every tid keeps the
// watermark, the oldest tid a node would restart from, out of the way.)
func TestVersionsKeptBetweenOneAndTwoWindows(t *testing.T) {
	cfg := config(1, 1)
	cfg.Versions, cfg.SnapshotEvery = 4, 1
	d := deploy(t, 1, cfg)
	ck, r := d.clerk(), d.raw()
	horizon := 0
	reach := func() int {
		for ; ; horizon++ {
			require.LessOrEqual(t, horizon, d.server(0).Processed(), "reads as of the newest tid are served")
			var get logorder.GetReply
			r.call(t, 0, "Server.Get", &logorder.GetArgs{Tid: horizon, Keys: []string{"a"}}, &get)
			if get.Err == logorder.OK {
				return d.server(0).Processed() - horizon
			}
			require.Equal(t, logorder.ErrTooOld, get.Err, "as of tid %d", horizon)
		}
	}
	d.put(t, ck, "a", "first") // a leader, its barrier, and a tid to read as of
	prev, collections := reach(), 0
	for i := range 5 * cfg.Versions {
		d.put(t, ck, "a", fmt.Sprint(i))
		got := reach()
		if prev < 2*cfg.Versions {
			require.Equal(t, prev+1, got, "one more tid, nothing collected (tid %d)", d.server(0).Processed())
		} else {
			require.Equal(t, cfg.Versions, got, "collected back to Versions tids (tid %d)", d.server(0).Processed())
			collections++
		}
		prev = got
	}
	assert.GreaterOrEqual(t, collections, 2)
}

// A node saves a snapshot whenever it has processed SnapshotEvery tids
// since the last one, and never with SnapshotEvery 0: killed after tid 11,
// it restarts from tid 8 with snapshots every 4 tids, from nothing without.
func TestSnapshotCadence(t *testing.T) {
	for every, want := range map[int]int{4: 8, 0: 0} {
		cfg := config(1, 1)
		cfg.SnapshotEvery = every
		d := deploy(t, 1, cfg)
		ck := d.clerk()
		for range 11 {
			if d.server(0).Processed() < 11 {
				d.put(t, ck, "a", "v")
			}
		}
		require.Equal(t, 11, d.server(0).Processed(), "each put takes one tid")
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, 0)}))
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, 0)}))
		assert.Equal(t, want, d.server(0).Processed(), "SnapshotEvery %d: the tid the restored snapshot was saved at", every)
	}
}
