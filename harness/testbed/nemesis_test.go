package testbed

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
)

// TestBurstsShape checks the shape of drawn bursts: each burst lasts
// between half and one and a half times Burst, ends with a heal that
// restarts what it killed, is followed by a calm free of faults, and the
// last burst runs to the end of the run.
func TestBurstsShape(t *testing.T) {
	b := Bursts{
		Hosts:  5,
		Faults: chaos.NemesisConfig{Interval: 30 * time.Millisecond, Weights: chaos.DefaultWeights()},
		Burst:  2 * time.Second, Calm: time.Second, Length: 30 * time.Second,
	}
	for seed := range uint64(20) {
		n, err := b.Generate(rand.New(rand.NewPCG(seed, 3)))
		require.NoError(t, err)
		require.NotEmpty(t, n.Heals, "seed %d", seed)
		start := time.Duration(0)
		for i, h := range n.Heals {
			burst := h - start
			assert.True(t, burst >= b.Burst/2 && burst <= 3*b.Burst/2, "seed %d burst %d lasts %v", seed, i, burst)
			dead := map[int]bool{}
			for _, s := range n.Schedule {
				switch {
				case s.At > h && s.At < h+b.Calm:
					t.Errorf("seed %d: %v at %v, in the calm after the heal at %v", seed, s.Fault, s.At, h)
				case s.At > start && s.At < h && s.Fault.Kind == fault.Kill:
					dead[s.Fault.Host] = true
				case s.At > start && s.At < h && s.Fault.Kind == fault.Restart:
					delete(dead, s.Fault.Host)
				case s.At == h && s.Fault.Kind == fault.Restart:
					delete(dead, s.Fault.Host)
				}
			}
			assert.Empty(t, dead, "seed %d: the heal at %v restarts what its burst killed", seed, h)
			start = h + b.Calm
		}
		last, calm := n.Schedule[len(n.Schedule)-1].At, n.Heals[len(n.Heals)-1]+b.Calm
		if calm+time.Second < b.Length { // room for faults at 30 ms
			assert.Greater(t, last, calm, "seed %d: a last burst after the last calm", seed)
		}
		assert.LessOrEqual(t, last, b.Length)
	}
	_, err := Bursts{Hosts: 3, Burst: time.Second, Calm: 0}.Generate(rand.New(rand.NewPCG(1, 1)))
	assert.ErrorContains(t, err, "calms of 0s")
}

// TestApplied records what the nemesis asked for (Attempts) and what it
// applied (Applied), on the schedule's clock; a fault Skip names is
// asked for but neither applied nor logged.
func TestApplied(t *testing.T) {
	r := toyRun(t, 1, &toy{}, links)
	r.Nemesis = Nemesis{Schedule: []chaos.Step{
		{At: time.Second, Fault: fault.Fault{Kind: fault.Isolate, Host: 1}},
		{At: 2 * time.Second, Fault: fault.Fault{Kind: fault.Heal}},
		{At: 3 * time.Second, Fault: fault.Fault{Kind: fault.Heal}}, // nothing to heal: not logged
	}}
	rec, err := r.Execute()
	require.NoError(t, err)
	require.True(t, rec.OK(), rec.Problem)
	assert.Equal(t, r.Nemesis.Schedule, rec.Attempts)
	assert.Equal(t, r.Nemesis.Schedule[:2], rec.Applied)
	r.Nemesis.Skip = []int{0}
	rec, err = r.Execute()
	require.NoError(t, err)
	assert.Equal(t, r.Nemesis.Schedule, rec.Attempts, "asked for all the same")
	assert.Empty(t, rec.Applied, "the isolation skipped, its heal heals nothing")
	assert.NotContains(t, rec.FaultLog.String(), "isolate")
}
