package chaos

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
)

// every is a nemesis configuration that draws every kind of fault.
func every() NemesisConfig {
	return NemesisConfig{Interval: 20 * time.Millisecond, Weights: Weights{
		Partition: 2, Bridge: 1, Isolate: 1, Cut: 1, Kill: 2, Restart: 2, Heal: 2,
		Rejoin: 1, Uncut: 1, Unreliable: 1, Reordering: 1, LongDelays: 1,
	}}
}

// TestGenerateIsWhatTheMonkeyApplies checks that a drawn schedule is the
// fault log it leaves: the model the schedule is drawn from agrees with
// the monkey about what each fault changes, so every step is logged, at
// its time.
func TestGenerateIsWhatTheMonkeyApplies(t *testing.T) {
	kinds := map[fault.Kind]bool{}
	for seed := range uint64(5) {
		steps, err := Generate(rand.New(rand.NewPCG(seed, 1)), 5, every(), 3*time.Second, Modes{Unreliable: true})
		require.NoError(t, err)
		require.Greater(t, len(steps), 50, "seed %d", seed)
		m := newMonkey(t, 5)
		require.NoError(t, m.Apply(fault.Fault{Kind: fault.Unreliable, On: true}))
		require.NoError(t, m.Schedule(steps))
		m.w.Run(4 * time.Second)
		log := m.Log()[1:]
		require.Len(t, log, len(steps), "seed %d", seed)
		for i, s := range steps {
			assert.Equal(t, s.At, log[i].At, "seed %d step %d", seed, i)
			assert.Equal(t, s.Fault.String(), log[i].Fault.String(), "seed %d step %d", seed, i)
			kinds[s.Fault.Kind] = true
		}
	}
	assert.Len(t, kinds, 12, "every kind drawn")
}

// TestGenerateIsSeeded checks that a schedule is a function of its random
// stream, and that it keeps the dead to a minority.
func TestGenerateIsSeeded(t *testing.T) {
	draw := func(seed uint64) []Step {
		steps, err := Generate(rand.New(rand.NewPCG(seed, 7)), 5, every(), 10*time.Second, Modes{})
		require.NoError(t, err)
		return steps
	}
	a := draw(3)
	assert.Equal(t, a, draw(3))
	assert.NotEqual(t, a, draw(4))
	dead := map[int]bool{}
	for _, s := range a {
		require.LessOrEqual(t, s.At, 10*time.Second)
		switch s.Fault.Kind {
		case fault.Kill:
			dead[s.Fault.Host] = true
		case fault.Restart:
			delete(dead, s.Fault.Host)
		}
		require.LessOrEqual(t, len(dead), 2, "more than a minority of 5 dead at %v", s.At)
	}
}

// TestGenerateRefusesBadInput checks that every bad argument is named.
func TestGenerateRefusesBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		rng    *rand.Rand
		hosts  int
		cfg    NemesisConfig
		length time.Duration
		want   string
	}{
		{nil, 3, every(), time.Second, "random number generator"},
		{rng, 0, every(), time.Second, "0 hosts"},
		{rng, 3, every(), -time.Second, "negative length, -1s"},
		{rng, 3, NemesisConfig{Interval: time.Microsecond, Weights: DefaultWeights()}, time.Second, "interval 1µs"},
		{rng, 3, NemesisConfig{Interval: time.Second}, time.Second, "all zero"},
		{rng, 3, NemesisConfig{Interval: time.Second, Weights: DefaultWeights(), MaxDead: 4}, time.Second, "MaxDead 4"},
	} {
		_, err := Generate(c.rng, c.hosts, c.cfg, c.length, Modes{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
	steps, err := Generate(rng, 3, every(), 0, Modes{})
	require.NoError(t, err)
	assert.Empty(t, steps, "nothing in no time")
}
