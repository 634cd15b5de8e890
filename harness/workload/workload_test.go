package workload

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

// fake is a KV that answers after a millisecond and remembers what it saw.
type fake struct {
	w      *sim.World
	keys   map[string]int
	kinds  map[Kind]int
	values []string
}

func (f *fake) later(k Kind, key string, done func()) {
	f.keys[key]++
	f.kinds[k]++
	f.w.After(time.Millisecond, done)
}

func (f *fake) Get(key string, done func(string, int64)) {
	f.later(Get, key, func() { done("", 0) })
}

func (f *fake) Put(key, value string, done func()) {
	f.values = append(f.values, value)
	f.later(Put, key, done)
}

func (f *fake) Append(key, value string, done func()) {
	f.values = append(f.values, value)
	f.later(Append, key, done)
}

func newFake(w *sim.World) *fake { return &fake{w: w, keys: map[string]int{}, kinds: map[Kind]int{}} }

func TestMixThinkStopAndDone(t *testing.T) {
	w := sim.NewWorld(1)
	a, b := newFake(w), newFake(w)
	var done int
	var lastEnd time.Duration
	run := Start(w, []KV{a, b}, Spec{
		Mix: Mix{Get: 2, Put: 1}, Keys: Own(), Think: 2 * time.Millisecond, ValueSize: 8,
		Done: func(c int, k Kind, start, end time.Duration) {
			done++
			assert.Equal(t, time.Millisecond, end-start)
			lastEnd = end
		},
	})
	w.Run(time.Second)
	ops := a.kinds[Get] + a.kinds[Put]
	assert.Zero(t, a.kinds[Append], "a weight of 0 is never drawn")
	assert.InDelta(t, 2.0, float64(a.kinds[Get])/float64(a.kinds[Put]), 0.4, "gets twice as often as puts")
	assert.InDelta(t, 500, ops, 100, "an op takes 1 ms and the think time averages 1 ms")
	assert.Equal(t, map[string]int{"k0": ops}, a.keys, "client 0 uses its own key")
	assert.Contains(t, b.keys, "k1")
	for _, v := range a.values {
		assert.GreaterOrEqual(t, len(v), 8)
	}
	assert.False(t, run.Finished())
	run.Stop()
	w.Run(10 * time.Millisecond)
	assert.True(t, run.Finished())
	before := done
	w.Run(time.Second)
	assert.Equal(t, before, done, "stopped processes do nothing more")
	assert.Less(t, lastEnd, time.Second+10*time.Millisecond)
	// A second run on the same world writes values the first never did.
	second := newFake(w)
	Start(w, []KV{second}, Spec{Mix: Mix{Put: 1}, Keys: Own()}).Stop()
	w.Run(10 * time.Millisecond)
	require.NotEmpty(t, second.values)
	assert.NotContains(t, a.values, second.values[0], "values are unique across runs")
}

func TestKeyDistributions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	count := func(keys Keys) map[string]int {
		m := map[string]int{}
		for range 10000 {
			m[keys(rng, 3)]++
		}
		return m
	}
	u := count(Uniform(4))
	assert.Len(t, u, 4)
	assert.InDelta(t, 2500, u["k2"], 250)
	h := count(HotKey(10, 0.5))
	assert.InDelta(t, 5500, h["k0"], 300, "half the picks, plus its uniform share")
	z := count(Zipf(100, 1.5))
	assert.Greater(t, z["k0"], z["k1"])
	assert.Greater(t, z["k1"], z["k5"])
	assert.Equal(t, map[string]int{"k3": 10000}, count(Own()))
	g := count(Groups(10, 4)) // client 3's group: k3 and k7
	assert.Len(t, g, 2)
	assert.InDelta(t, 5000, g["k7"], 300)
	for c := range 8 { // every key is some client's, and only its group's
		seen := map[string]bool{}
		for range 200 {
			seen[Groups(10, 4)(rng, c)] = true
		}
		want := map[string]bool{}
		for k := c % 4; k < 10; k += 4 {
			want[key(k)] = true
		}
		assert.Equal(t, want, seen, "client %d", c)
	}
}

func TestBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	assert.PanicsWithValue(t, "workload: Uniform: 0 keys", func() { Uniform(0) })
	assert.PanicsWithValue(t, "workload: Groups: 0 groups", func() { Groups(3, 0) })
	assert.PanicsWithValue(t, "workload: Groups: 4 groups of 3 keys leave some group without a key", func() { Groups(3, 4) })
	assert.PanicsWithValue(t, "workload: HotKey: probability 1.5 is not in [0, 1]", func() { HotKey(3, 1.5) })
	assert.PanicsWithValue(t, "workload: Zipf: exponent 1 must be above 1", func() { Zipf(3, 1) })
	assert.PanicsWithValue(t, "workload: mix {Get:0 Put:0 Append:0} needs finite non-negative weights, not all zero", func() { Start(w, nil, Spec{Keys: Own()}) })
	assert.PanicsWithValue(t, "workload: mix {Get:-1 Put:2 Append:0} needs finite non-negative weights, not all zero", func() { Start(w, nil, Spec{Mix: Mix{Get: -1, Put: 2}, Keys: Own()}) })
	assert.PanicsWithValue(t, "workload: mix {Get:+Inf Put:0 Append:0} needs finite non-negative weights, not all zero", func() { Start(w, nil, Spec{Mix: Mix{Get: math.Inf(1)}, Keys: Own()}) })
	assert.PanicsWithValue(t, "workload: mix {Get:1 Put:+Inf Append:0} needs finite non-negative weights, not all zero", func() { Start(w, nil, Spec{Mix: Mix{Get: 1, Put: math.Inf(1)}, Keys: Own()}) })
	assert.PanicsWithValue(t, "workload: mix {Get:NaN Put:1 Append:0} needs finite non-negative weights, not all zero", func() { Start(w, nil, Spec{Mix: Mix{Get: math.NaN(), Put: 1}, Keys: Own()}) })
	assert.PanicsWithValue(t, "workload: Start: a nil world", func() { Start(nil, nil, Spec{Mix: Mix{Get: 1}, Keys: Own()}) })
	assert.PanicsWithValue(t, "workload: Start: client 1 is nil", func() { Start(w, []KV{newFake(w), nil}, Spec{Mix: Mix{Get: 1}, Keys: Own()}) })
	assert.PanicsWithValue(t, "workload: no key distribution", func() { Start(w, nil, Spec{Mix: Mix{Get: 1}}) })
	assert.PanicsWithValue(t, "workload: think time -1s is negative", func() { Start(w, nil, Spec{Mix: Mix{Get: 1}, Keys: Own(), Think: -time.Second}) })
	assert.PanicsWithValue(t, "workload: value size -1 is negative", func() { Start(w, nil, Spec{Mix: Mix{Get: 1}, Keys: Own(), ValueSize: -1}) })
	require.True(t, Start(w, nil, Spec{Mix: Mix{Get: 1}, Keys: Own()}).Finished(), "no clients: finished at once")
}
