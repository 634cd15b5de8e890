package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClockRateLimitsAreInclusive(t *testing.T) {
	for _, ok := range []float64{0.001, 1, 1000} {
		assert.NoError(t, CheckClockRate(ok))
	}
	for _, bad := range []float64{0.000999, 1000.001, -1} {
		assert.Error(t, CheckClockRate(bad))
	}
	h := NewWorld(1).NewHost("h")
	require.NoError(t, h.SetClockRate(0.25))
	assert.Equal(t, 0.25, h.ClockRate())
	require.NoError(t, h.SetTimerNoise(0), "no noise is fine")
}

func TestLocalTimeAfterARateChangeMidway(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	w.Run(time.Second)
	require.NoError(t, h.SetClockRate(1.5))
	w.Run(1001 * time.Millisecond)
	assert.Equal(t, time.Second+1501500*time.Microsecond, h.Now())
	require.NoError(t, h.SetClockRate(0.3))
	w.Run(7 * time.Nanosecond)
	assert.Equal(t, time.Second+1501500*time.Microsecond+2, h.Now(), "0.3 × 7 ns, rounded down")
}

func TestADriftingTimerNeverFiresEarlyByItsOwnClock(t *testing.T) {
	for _, rate := range []float64{0.3, 0.7, 1.3, 3} {
		w := NewWorld(1)
		h := w.NewHost("h")
		require.NoError(t, h.SetClockRate(rate))
		w.Run(3 * time.Millisecond)
		for _, d := range []time.Duration{1, 7, 1000, 12345679} {
			start, real := h.Now(), w.Now()
			var local, at time.Duration
			h.After(d, func() { local, at = h.Now(), w.Now() })
			w.Run(time.Second)
			assert.GreaterOrEqual(t, local-start, d, "rate %v, delay %v", rate, d)
			assert.LessOrEqual(t, at-real, time.Duration(float64(d)/rate)+2, "rate %v, delay %v: not late either", rate, d)
		}
	}
}

func TestNoNoiseDrawsNoRandomness(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	require.NoError(t, h.SetTimerNoise(0))
	h.After(time.Millisecond, func() {})
	h.NewTimer(func() {}).Reset(time.Millisecond)
	assert.Equal(t, NewWorld(1).Rand().Uint64(), w.Rand().Uint64())
	assert.Equal(t, NewWorld(1).NewHost("h").Rand().Uint64(), h.Rand().Uint64())
}

func TestRandDurationCoversItsClosedRange(t *testing.T) {
	w := NewWorld(1)
	assert.Equal(t, 5*time.Second, w.RandDuration(5*time.Second, 5*time.Second))
	seen := map[time.Duration]int{}
	for range 1000 {
		seen[w.RandDuration(10, 12)]++
	}
	assert.Len(t, seen, 3)
	for d := range seen {
		assert.True(t, d >= 10 && d <= 12, "%v out of [10, 12]", d)
	}
	assert.PanicsWithValue(t, "sim: RandDuration: hi 1ns is below lo 2ns", func() { w.RandDuration(2, 1) })
}
