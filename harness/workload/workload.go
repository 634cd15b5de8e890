// Package workload drives services from inside a world: client processes
// that pick operations from a mix, keys from a distribution (uniform, a
// hot key, Zipf, or one key of their own), pause for a think time, record
// what they did, and stop when asked. Tests, experiments and sweeps share
// it; no service imports it.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/sim"
)

// A KV is a key/value client as the workload drives it: *kvraft.Clerk and
// *linearize.RecordedKV are both.
type KV = linearize.KV

// A Kind names an operation.
type Kind int

// The operations.
const (
	Get Kind = iota
	Put
	Append
)

// Mix weighs the operations against each other.
type Mix struct{ Get, Put, Append float64 }

// Keys picks the key for client's next operation from rng.
type Keys func(rng *rand.Rand, client int) string

// Uniform picks one of n keys (k0 … k(n-1)) uniformly.
func Uniform(n int) Keys {
	mustPositive("Uniform", n)
	return func(rng *rand.Rand, _ int) string { return key(rng.IntN(n)) }
}

// Groups splits n keys and the clients into g groups (key k and client c
// are in group k mod g and c mod g) and picks, for a client, one of its
// group's keys uniformly: however many clients there are, a key is shared
// by at most one in g of them (g ≤ n). A linearizability check's search
// grows with how many operations on one key overlap; this bounds them.
func Groups(n, g int) Keys {
	mustPositive("Groups", n)
	if g <= 0 {
		panic(fmt.Sprintf("workload: Groups: %d groups", g))
	}
	if g > n {
		panic(fmt.Sprintf("workload: Groups: %d groups of %d keys leave some group without a key", g, n))
	}
	return func(rng *rand.Rand, client int) string {
		c := client % g
		return key(c + g*rng.IntN((n-c+g-1)/g))
	}
}

// HotKey picks k0 with probability p, else one of the n keys uniformly.
func HotKey(n int, p float64) Keys {
	mustPositive("HotKey", n)
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("workload: HotKey: probability %v is not in [0, 1]", p))
	}
	return func(rng *rand.Rand, _ int) string {
		if rng.Float64() < p {
			return key(0)
		}
		return key(rng.IntN(n))
	}
}

// Zipf picks key i of n with probability proportional to 1/(1+i)^s (s > 1).
func Zipf(n int, s float64) Keys {
	mustPositive("Zipf", n)
	if !(s > 1) {
		panic(fmt.Sprintf("workload: Zipf: exponent %v must be above 1", s))
	}
	var z *rand.Zipf
	var from *rand.Rand
	return func(rng *rand.Rand, _ int) string {
		if rng != from { // one generator per world
			z, from = rand.NewZipf(rng, s, 1, uint64(n-1)), rng
		}
		return key(int(z.Uint64()))
	}
}

// Own gives each client a key of its own (k<client>).
func Own() Keys { return func(_ *rand.Rand, client int) string { return key(client) } }

func key(i int) string { return fmt.Sprintf("k%d", i) }

func mustPositive(what string, n int) {
	if n <= 0 {
		panic(fmt.Sprintf("workload: %s: %d keys", what, n))
	}
}

// A Spec describes what each client process does.
type Spec struct {
	Mix  Mix
	Keys Keys
	// Think is the most a client pauses between operations; each pause
	// is drawn uniformly from [0, Think].
	Think time.Duration
	// ValueSize pads every written value to at least this many bytes
	// (values are unique, even across runs on one world: a random run id,
	// the client and a count first).
	ValueSize int
	// Done, if set, hears of every operation that completes: which
	// client, what, and its virtual start and end times.
	Done func(client int, kind Kind, start, end time.Duration)
}

// A Run is client processes at work.
type Run struct {
	id       string // drawn from the world: values are unique across runs on one history
	stopped  bool
	running  int
	finished int
}

// Start starts one process per client, on w, doing what spec says.
func Start(w *sim.World, clients []KV, spec Spec) *Run {
	if w == nil {
		panic("workload: Start: a nil world")
	}
	for i, ck := range clients {
		if ck == nil {
			panic(fmt.Sprintf("workload: Start: client %d is nil", i))
		}
	}
	total := spec.Mix.Get + spec.Mix.Put + spec.Mix.Append
	if !(total > 0) || math.IsInf(total, 0) || spec.Mix.Get < 0 || spec.Mix.Put < 0 || spec.Mix.Append < 0 {
		panic(fmt.Sprintf("workload: mix %+v needs finite non-negative weights, not all zero", spec.Mix))
	}
	if spec.Keys == nil {
		panic("workload: no key distribution")
	}
	if spec.ValueSize < 0 {
		panic(fmt.Sprintf("workload: value size %d is negative", spec.ValueSize))
	}
	if spec.Think < 0 {
		panic(fmt.Sprintf("workload: think time %v is negative", spec.Think))
	}
	r := &Run{running: len(clients), id: strconv.FormatUint(w.Stream("workload").Uint64(), 36)}
	for i, ck := range clients {
		r.loop(w, i, ck, spec, total)
	}
	return r
}

// loop runs client i's process.
func (r *Run) loop(w *sim.World, i int, ck KV, spec Spec, total float64) {
	n := 0
	rng := ClientRand(w, i)
	var step func()
	step = func() {
		if r.stopped {
			r.finished++
			return
		}
		k := spec.Keys(rng, i)
		start := w.Now()
		next := func(kind Kind) func() {
			return func() {
				if spec.Done != nil {
					spec.Done(i, kind, start, w.Now())
				}
				w.After(sim.Duration(rng, 0, spec.Think), step)
			}
		}
		n++
		value := fmt.Sprintf("%s.%d.%d", r.id, i, n)
		if pad := spec.ValueSize - len(value); pad > 0 {
			value += strings.Repeat(".", pad)
		}
		switch x := rng.Float64() * total; {
		case x < spec.Mix.Get:
			ck.Get(k, func(string, int64) { next(Get)() })
		case x < spec.Mix.Get+spec.Mix.Put:
			ck.Put(k, value, next(Put))
		default:
			ck.Append(k, " "+value, next(Append))
		}
	}
	step()
}

// Stop asks every process to stop after its current operation.
func (r *Run) Stop() { r.stopped = true }

// Finished reports whether every process has stopped.
func (r *Run) Finished() bool { return r.finished == r.running }

// ClientRand returns client i's random stream, the world's stream "client
// i": its keys, operations and think times are its own, so that one client
// more or less, or a fault removed, does not shift what the others draw.
func ClientRand(w *sim.World, i int) *rand.Rand {
	return w.Stream("client " + strconv.Itoa(i))
}
