package logorder_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The log is trimmed below the watermark: with every node up, each node's
// log stays within a few snapshots' worth of entries however many
// transactions commit; with a node down, the others keep every entry after
// its snapshot, which it needs when it restarts (from its snapshot and the
// log, never a leader's snapshot: another node's state could not stand
// for its keys, and restoring one fails), and a node restarted meanwhile
// restores its disk's snapshot, newer than the one its log was last
// trimmed with. Once the first has caught up and saved a snapshot again,
// the logs shrink back.
func TestLogTrimmedBelowWatermark(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		cfg := config(3, 2)
		cfg.SnapshotEvery = 8
		d := deploy(t, seed, cfg)
		ck := d.clerk()
		logs := func() (most int) {
			for i := range 3 {
				most = max(most, d.c.Persister(0, i).RaftStateSize())
			}
			return most
		}
		write := func(n int, prefix string) {
			for i := range n {
				d.put(t, ck, keyOn(i%3, cfg.Layout, prefix), fmt.Sprint(i))
			}
		}
		write(40, "a")
		small := logs()
		write(200, "b")
		assert.LessOrEqual(t, logs(), 2*small, "with every node up, the logs stay small (%d bytes after 40 puts)", small)

		leader, ok := d.c.Leader(0)
		require.True(t, ok)
		down := (leader + 1) % 3
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, down)}))
		write(200, "c")
		assert.Greater(t, logs(), 4*small, "with a node down, the others keep the entries after its snapshot")
		// The third node's snapshots went on while the log could not be
		// trimmed: its disk is newer than the snapshot Raft holds.
		third := 3 - leader - down
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, third)}))
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, third)}))
		write(10, "c2")
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, down)}))
		write(40, "d")
		assert.True(t, d.w.RunUntil(func() bool { return d.d.Drained(d.c) }, 5*time.Second), "the restarted node caught up")
		write(40, "e")
		assert.LessOrEqual(t, logs(), 2*small, "once it has saved a snapshot again, the logs shrink back")
		v, _ := d.get(t, d.begin(t, ck, ck.LastTid()), keyOn(down, cfg.Layout, "c"))
		assert.Equal(t, fmt.Sprint(199-(199-down)%3), v, "the restarted node's keys are whole")
		assert.Empty(t, d.disagreement())
		return d.result()
	})
}

// A node takes another's announcement of its snapshot as a lower bound
// of it, and ignores one that names no other node: the watermark moves
// only with real snapshots.
func TestBadAnnouncementsIgnored(t *testing.T) {
	cfg := config(3, 1)
	cfg.SnapshotEvery = 4
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	for i := range 10 {
		d.put(t, ck, "a", fmt.Sprint(i))
	}
	d.w.Run(time.Second)
	before := d.server(0).Watermark()
	require.Positive(t, before)
	r := d.raw()
	for _, args := range []logorder.SavedArgs{{Node: 3, Tid: 1 << 40}, {Node: -1, Tid: 1 << 40}, {Node: 0, Tid: 1 << 40}, {Node: 1, Tid: 0}} {
		r.call(t, 0, "Server.Saved", &args, &logorder.SavedReply{})
	}
	assert.Equal(t, before, d.server(0).Watermark(), "out of range, its own, or older than it knows")
}
