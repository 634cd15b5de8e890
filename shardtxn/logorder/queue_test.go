package logorder_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node's snapshot holds the transactions it had queued but not yet
// processed; restarted, it processes them on its own, with no new entry in
// the log to wake it. The node is cut off while transactions commit, so
// that the log reaches it in one batch when it rejoins; it processes the
// blind writes at once, saving a snapshot after each, and is killed
// waiting for another node's value, the rest of the batch queued.
func TestRestoredQueueProcessed(t *testing.T) {
	cfg := config(3, 1)
	cfg.SnapshotEvery, cfg.CacheSize = 1, 0
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	d.put(t, ck, "warm", "up")
	leader, ok := d.c.Leader(0)
	require.True(t, ok)
	f := (leader + 1) % 3
	mine, other := keyOn(f, cfg.Layout, "m"), keyOn(leader, cfg.Layout, "o")
	d.put(t, ck, other, "x")
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Isolate, Host: d.c.HostOf(0, f)}))
	for i := range 5 {
		d.put(t, ck, mine, fmt.Sprint(i)) // blind writes: f decides them alone
	}
	tx := d.begin(t, ck, ck.LastTid()) // a write of f's key after a read of the leader's: f must fetch
	v, _ := d.get(t, tx, other)
	require.NoError(t, tx.Put(mine, "after "+v))
	fetched, _ := d.commit(t, tx)
	for i := range 5 {
		d.put(t, ck, mine, fmt.Sprint("late", i))
	}
	last := ck.LastTid()
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Rejoin, Host: d.c.HostOf(0, f)}))
	require.True(t, d.w.RunUntil(func() bool { return d.server(f).Processed() == fetched-1 && d.server(f).Queued() > 0 }, 5*time.Second),
		"f processed the blind writes and waits on its fetch")
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, f)}))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, f)}))
	require.Positive(t, d.server(f).Queued(), "restored with transactions queued")
	d.w.Run(time.Second)
	assert.Zero(t, d.server(f).Queued(), "processed with nothing new in the log")
	assert.GreaterOrEqual(t, d.server(f).Processed(), last)
	assert.Empty(t, d.disagreement())
}
