package testbed

import (
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/labrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// draws draws one of each kind and returns the record.
func draws(seed int64, stream uint64) []Param {
	d := NewDraw(seed, stream)
	d.Int("servers", 3, 7)
	d.LogInt("clients", 1, 50)
	d.Float("loss", 0, 0.2)
	d.Chance("unreliable", 0.5)
	d.Duration("length", time.Second, 3*time.Minute)
	d.Pick("reads", "log", "readindex", "lease")
	return d.Params
}

// TestDrawIsSeededAndRecorded checks that a draw is a function of its
// seed and stream, and records every value by name, in order.
func TestDrawIsSeededAndRecorded(t *testing.T) {
	a := draws(7, 1)
	assert.Equal(t, a, draws(7, 1))
	assert.NotEqual(t, a, draws(7, 2), "another scenario's stream")
	assert.NotEqual(t, a, draws(8, 1))
	var names []string
	for _, p := range a {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"servers", "clients", "loss", "unreliable", "length", "reads"}, names)
}

// TestDrawStaysInBounds draws many values and checks each range, ends
// included, is kept and reached.
func TestDrawStaysInBounds(t *testing.T) {
	d := NewDraw(1, 1)
	seen := map[int]bool{}
	for range 2000 {
		v := d.LogInt("n", 1, 50)
		require.True(t, v >= 1 && v <= 50, "%d", v)
		seen[v] = true
		i := d.Int("i", 3, 7)
		require.True(t, i >= 3 && i <= 7, "%d", i)
		l := d.Duration("l", time.Second, time.Minute)
		require.True(t, l >= time.Second && l <= time.Minute, "%v", l)
		f := d.Float("f", 0.5, 1)
		require.True(t, f >= 0.5 && f < 1, "%v", f)
	}
	assert.True(t, seen[1] && seen[50], "both ends reached")
	assert.Less(t, len(seen), 51)
	assert.PanicsWithValue(t, `testbed: Draw.Pick("x") of no options`, func() { d.Pick("x") })
}

// TestDrawEdges checks the edges of the draws: Int reaches both ends, a
// chance of 0 or 1 is certain, and durations round to a millisecond only
// above one.
func TestDrawEdges(t *testing.T) {
	d := NewDraw(2, 1)
	seen := map[int]bool{}
	for range 500 {
		seen[d.Int("i", 3, 7)] = true
		require.False(t, d.Chance("never", 0))
		require.True(t, d.Chance("always", 1))
		short := d.Duration("short", 10*time.Microsecond, 900*time.Microsecond)
		require.True(t, short >= 10*time.Microsecond && short <= 900*time.Microsecond, "%v", short)
		require.LessOrEqual(t, DrawLength(d, time.Second, 30*time.Second, time.Minute, 0), 30*time.Second)
		require.GreaterOrEqual(t, DrawLength(d, time.Second, 30*time.Second, time.Minute, 1), 30*time.Second)
		long := d.Duration("long", 2*time.Millisecond, time.Second)
		require.Zero(t, long%time.Millisecond, "%v", long)
	}
	assert.Len(t, seen, 5)
	unrounded := 0
	for _, p := range d.Params {
		if p.Name == "short" && !strings.HasSuffix(p.Value, "0µs") {
			unrounded++
		}
	}
	assert.Positive(t, unrounded, "durations under a millisecond keep their nanoseconds")
}

// TestDrawLANAndLongestWay checks DrawLAN's bounds and what it prints,
// and the longest way of a LAN, of an unreliable network and of labrpc's
// defaults.
func TestDrawLANAndLongestWay(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		d := NewDraw(seed, 7)
		lan := DrawLAN(d, 1)
		require.NotNil(t, lan.Params)
		assert.False(t, lan.Modes.Unreliable, "a LAN is reliable")
		assert.GreaterOrEqual(t, lan.Params.Latency, 50*time.Microsecond)
		assert.LessOrEqual(t, lan.Params.Latency, time.Millisecond)
		assert.LessOrEqual(t, lan.Params.Jitter, lan.Params.Latency)
		assert.Equal(t, lan.Params.Latency+lan.Params.Jitter, lan.LongestWay(), "no short delays on a LAN")
		assert.Contains(t, d.Params, Param{"unreliable", "false (a LAN)"}, "the seed prints its network as a LAN")
	}
	p := labrpc.DefaultParams()
	p.Latency, p.Jitter, p.ShortDelay = 2*time.Millisecond, time.Millisecond, 27*time.Millisecond
	lossy := Network{Params: &p, Modes: chaos.Modes{Unreliable: true}}
	assert.Equal(t, 30*time.Millisecond, lossy.LongestWay(), "an unreliable network adds its short delays")
	def := labrpc.DefaultParams()
	assert.Equal(t, def.Latency+def.Jitter, Network{}.LongestWay(), "no parameters: labrpc's defaults")
}
