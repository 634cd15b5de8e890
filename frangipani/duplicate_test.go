package frangipani_test

import (
	"testing"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDuplicatedReadLeavesNoLock has the network deliver every request
// twice while a client reads a key another client used last, which the
// lock service performs instead of granting the lock: the duplicate of
// the acquire is answered as the first was, and leaves no lock behind.
// Before, the duplicate found the reader the key's last user and granted
// it a shared lock its clerk never learned of: writers waited for the
// lease to run out, and the reader's own next write, asking for the lock
// exclusive, was refused.
func TestDuplicatedReadLeavesNoLock(t *testing.T) {
	t.Parallel()
	simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
		cfg := frangipani.DefaultConfig()
		d := deploy(t, seed, cfg)
		a, _ := d.clerk(t, "a")
		b, _ := d.clerk(t, "b")
		c, _ := d.clerk(t, "c")
		d.put(t, a, "k", "a")
		v, _ := d.get(t, c, "k") // a flushes; c's read is performed: k is free, c its last user
		assert.Equal(t, "a", v)
		d.get(t, b, "other") // b finds the leader

		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Duplicate, Rate: 1}))
		v, _ = d.get(t, b, "k")
		assert.Equal(t, "a", v)
		d.w.Run(10 * d.hop()) // the duplicate arrives and goes through the log
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Duplicate, Rate: 0}))
		_, _, holders := d.value(t, "k")
		assert.Zero(t, holders, "b's read, delivered twice, left no lock")

		start := d.w.Now()
		d.put(t, a, "k", "A")
		assert.Less(t, d.w.Now()-start, cfg.Lease/10, "a writer waits for no lease")
		d.put(t, b, "k", "B") // asks for k exclusive
		v, _ = d.get(t, c, "k")
		assert.Equal(t, "B", v)
		return simtest.Result{World: d.w, Hosts: len(d.w.Hosts()), RPCs: d.c.Net().GetTotalCount()}
	})
}
