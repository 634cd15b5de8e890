package logorder_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeadOwnerAvoided kills one of a key's two owners. A clerk's read
// sent to it fails, and for twice the timeout after that the clerk asks
// the other owners only; then it tries the dead one again. (Only the
// reads are timed: a Begin may wait for a server whose own fetches found
// the dead node.)
func TestDeadOwnerAvoided(t *testing.T) {
	for _, timeout := range []time.Duration{100 * time.Millisecond} {
		cfg := config(3, 2)
		d := deploy(t, 1, cfg)
		ck := d.clerk()
		d.put(t, ck, "a", "elected")
		ck.SetTimeout(timeout)
		leader, ok := d.c.Leader(0)
		require.True(t, ok)
		dead := (leader + 1) % 3
		key := keyOn(dead, cfg.Layout, "k")
		d.put(t, ck, key, "v")
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, dead)}))
		slow := func() bool { // a read that asked the dead node
			tx := d.begin(t, ck, ck.LastTid())
			start := d.w.Now()
			v, _ := d.get(t, tx, key)
			require.Equal(t, "v", v)
			return d.w.Now()-start >= 5*time.Millisecond
		}
		n := 0
		for range 12 {
			if slow() {
				n++
			}
		}
		assert.LessOrEqual(t, n, 1, "timeout %v: within twice the timeout of its first silence, the dead owner is asked no more", timeout)
		n = 0
		for range 20 {
			d.w.Run(2*timeout + time.Millisecond)
			if slow() {
				n++
			}
		}
		assert.Greater(t, n, 0, "timeout %v: once twice the timeout has passed, the dead owner may be asked again", timeout)
	}
}
