package rsm

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// TestPauseForDoubles checks each pause of a backoff: the n-th is drawn
// from [p/2, p], p doubling from the first up to the bound, and stays at
// the bound, even one near the longest duration; without a backoff every
// pause is 10 ms.
func TestPauseForDoubles(t *testing.T) {
	w := sim.NewWorld(1)
	r := MakeRouter(w.NewHost("c"), make([]*labrpc.ClientEnd, 1))
	assert.Equal(t, roundPause, r.pauseFor(1))
	assert.Equal(t, roundPause, r.pauseFor(7))
	r.SetBackoff(10*time.Millisecond, 100*time.Millisecond)
	for n, p := range []time.Duration{10, 20, 40, 80, 100, 100} {
		p *= time.Millisecond
		lo, hi := p, time.Duration(0)
		for range 200 {
			d := r.pauseFor(n + 1)
			lo, hi = min(lo, d), max(hi, d)
		}
		assert.GreaterOrEqual(t, lo, p/2, "pause %d", n+1)
		assert.Less(t, lo, p*6/10, "pause %d: drawn down to about half", n+1)
		assert.LessOrEqual(t, hi, p, "pause %d", n+1)
		assert.Greater(t, hi, p*9/10, "pause %d: and up to about all", n+1)
	}
	r.SetBackoff(time.Second, math.MaxInt64)
	assert.GreaterOrEqual(t, r.pauseFor(100), time.Duration(math.MaxInt64/2), "no overflow on the way to the bound")
}
