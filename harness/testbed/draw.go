package testbed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// A Draw is the random stream a swarm seed draws its configuration from,
// apart from the world's, and the record of what it drew, by name, in
// order: Params is what a failing seed prints, so that it reads as a
// configuration.
type Draw struct {
	rng    *rand.Rand
	Params []Param
}

// NewDraw returns the draw of seed on the stream numbered stream (one
// per scenario, so two scenarios' draws of one seed differ).
func NewDraw(seed int64, stream uint64) *Draw {
	return &Draw{rng: rand.New(rand.NewPCG(uint64(seed), stream))}
}

// Rand returns the draw's random stream, for what is drawn but not
// printed (a nemesis's schedule, which the fault log shows).
func (d *Draw) Rand() *rand.Rand { return d.rng }

// Note records a value derived from what was drawn.
func (d *Draw) Note(name, value string) { d.Params = append(d.Params, Param{name, value}) }

// Int draws an int uniformly from [lo, hi].
func (d *Draw) Int(name string, lo, hi int) int {
	v := lo + d.rng.IntN(hi-lo+1)
	d.Note(name, strconv.Itoa(v))
	return v
}

// LogInt draws an int from [lo, hi] (lo ≥ 1) with its logarithm uniform,
// so small values are as likely as large ones, in ratio.
func (d *Draw) LogInt(name string, lo, hi int) int {
	v := int(math.Floor(float64(lo) * math.Pow(float64(hi+1)/float64(lo), d.rng.Float64())))
	v = min(max(v, lo), hi)
	d.Note(name, strconv.Itoa(v))
	return v
}

// Float draws a float64 uniformly from [lo, hi).
func (d *Draw) Float(name string, lo, hi float64) float64 {
	v := lo + (hi-lo)*d.rng.Float64()
	d.Note(name, strconv.FormatFloat(v, 'g', 3, 64))
	return v
}

// Chance reports true with probability p.
func (d *Draw) Chance(name string, p float64) bool {
	v := d.rng.Float64() < p
	d.Note(name, strconv.FormatBool(v))
	return v
}

// Duration draws a duration from [lo, hi] (lo > 0) with its logarithm
// uniform, rounded to a millisecond when it is over one.
func (d *Draw) Duration(name string, lo, hi time.Duration) time.Duration {
	v := time.Duration(float64(lo) * math.Pow(float64(hi)/float64(lo), d.rng.Float64()))
	if v > time.Millisecond {
		v = v.Round(time.Millisecond)
	}
	v = min(max(v, lo), hi)
	d.Note(name, v.String())
	return v
}

// Pick draws one of options, uniformly, and returns its index.
func (d *Draw) Pick(name string, options ...string) int {
	if len(options) == 0 {
		panic(fmt.Sprintf("testbed: Draw.Pick(%q) of no options", name))
	}
	k := d.rng.IntN(len(options))
	d.Note(name, options[k])
	return k
}
