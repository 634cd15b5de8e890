package sim

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// DefaultInstantLimit is how many events may fire at one virtual instant
// before a world decides it is livelocked and panics instead of hanging.
const DefaultInstantLimit = 50_000_000

// A World is one deterministic simulation: a virtual clock, an event queue, a
// seeded random number generator, hosts and a trace hash. A World is not safe
// for concurrent use; drive each world from one goroutine.
type World struct {
	seed  int64
	now   time.Duration
	seq   uint64
	q     queue
	stale int // events in q known to be stale
	rng   *rand.Rand
	hosts []*Host

	streams map[string]*rand.Rand // by name (Stream)

	hash   uint64
	events uint64

	instant      uint64 // events fired at the current instant
	instantLimit uint64
	eventLimit   uint64 // the most events a world may fire; 0: no limit

	trace io.Writer
	rec   Recorder // nil unless a recording is asked for
}

// NewWorld returns an empty world at virtual time zero whose random numbers
// all derive from seed.
func NewWorld(seed int64) *World {
	return &World{
		seed:         seed,
		rng:          rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)),
		hash:         hashInit,
		instantLimit: DefaultInstantLimit,
	}
}

// Seed returns the seed the world was made from.
func (w *World) Seed() int64 { return w.seed }

// Now returns the world's virtual time, measured from its creation.
func (w *World) Now() time.Duration { return w.now }

// Rand returns the world's own random stream, for choices that belong to
// no network, nemesis, client or host (which draw from their own streams:
// see Stream and Host.Rand). Every random choice made inside the world
// must come from one of its streams.
func (w *World) Rand() *rand.Rand { return w.rng }

// RandDuration returns a duration drawn uniformly from [lo, hi] on the
// world's own stream (Rand).
func (w *World) RandDuration(lo, hi time.Duration) time.Duration {
	return Duration(w.rng, lo, hi)
}

// Pending returns the number of events waiting in the queue that have not
// been cancelled.
func (w *World) Pending() int { return w.q.len() - w.stale }

// SetInstantLimit sets how many events may fire at one virtual instant before
// the world panics, reporting a livelock (zero-delay events that keep
// scheduling each other) instead of hanging.
func (w *World) SetInstantLimit(n uint64) {
	if n == 0 {
		panic("sim: SetInstantLimit: limit must be positive, got 0")
	}
	w.instantLimit = n
}

// SetEventLimit sets how many events the world may fire in all (0: no
// limit, the default). The event past it panics with a Storm, so that a
// run whose cost explodes (a planted bug's message storm, say) ends as a
// finding instead of running for hours.
func (w *World) SetEventLimit(n uint64) { w.eventLimit = n }

// A Storm is what a world panics with when it fires more events than its
// limit (see SetEventLimit).
type Storm struct {
	Limit uint64
	At    time.Duration // the virtual time it was reached
}

func (s Storm) Error() string {
	rate := float64(s.Limit) / max(s.At.Seconds(), 1e-9)
	return fmt.Sprintf("storm: more than %d events by virtual time %v (%.0f a virtual second)", s.Limit, s.At, rate)
}

// After schedules fn to run d from now, owned by no host: only the end of
// the world cancels it.
func (w *World) After(d time.Duration, fn func()) {
	w.schedule(w.at(d), Func(fn), nil)
}

// Schedule schedules a to fire d from now, owned by no host.
func (w *World) Schedule(d time.Duration, a Action) {
	w.schedule(w.at(d), a, nil)
}

// at returns the virtual time d from now. It panics, naming d, if d is
// negative or so long that the clock would overflow (about 292 years).
func (w *World) at(d time.Duration) time.Duration {
	checkDelay(d)
	if d > math.MaxInt64-w.now {
		panic(fmt.Sprintf("sim: delay %v from virtual time %v overflows the virtual clock", d, w.now))
	}
	return w.now + d
}

// checkDelay panics, naming d, if d is negative.
func checkDelay(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("sim: negative delay %v", d))
	}
}

func (w *World) schedule(at time.Duration, a Action, h *Host) {
	w.seq++
	e := event{act: a, host: h}
	if h != nil {
		e.epoch = h.epoch
		h.pending++
	}
	w.q.push(at, w.seq, e)
}

// markStale records that n queued events will never fire, and compacts the
// queue once most of it is dead weight.
func (w *World) markStale(n int) {
	w.stale += n
	if w.stale > 1024 && w.stale > w.q.len()/2 {
		w.q.compact()
		w.stale = 0
	}
}

// Step fires the next live event, advancing the clock to its time. It returns
// false if no live event is left.
func (w *World) Step() bool {
	if !w.live() {
		return false
	}
	en := w.q.top()
	e := w.q.slab[en.slot]
	w.q.pop()
	w.run(en, e)
	return true
}

// run fires e, just taken out of the heap at en.
func (w *World) run(en entry, e event) {
	if e.host != nil {
		e.host.pending--
	}
	w.fire(en, e.host)
	if t := e.timer; t != nil {
		if w.trace != nil {
			w.Tracef("timer fires on %s", t.owner())
		}
		if w.rec != nil {
			w.Record(Event{Kind: KindTimer, Host: t.hostID(), Peer: -1})
		}
		// The timer keeps its slot while it fires, for Reset to reuse.
		t.pending = false
		t.Fire()
		if !t.pending && t.queued {
			t.queued = false
			w.q.release(en.slot)
		}
		return
	}
	w.q.release(en.slot)
	e.act.Fire()
}

// fire advances the clock to en's time and folds the event into the trace.
func (w *World) fire(en entry, h *Host) {
	if en.at == w.now {
		w.instant++
		if w.instant > w.instantLimit {
			panic(fmt.Sprintf("sim: %d events fired at virtual time %v without the clock advancing: a livelock (see World.SetInstantLimit)", w.instant, w.now))
		}
	} else {
		w.now = en.at
		w.instant = 1
	}
	w.events++
	if w.events > w.eventLimit && w.eventLimit > 0 {
		panic(Storm{Limit: w.eventLimit, At: w.now})
	}
	var hid uint64
	if h != nil {
		hid = uint64(h.id) + 1
	}
	w.Fold(uint64(en.at), en.seq, hid)
}

// live drops stale events from the front of the queue and reports whether a
// live one is left.
func (w *World) live() bool {
	for w.q.len() > 0 {
		s := w.q.top().slot
		if !w.q.slab[s].stale() {
			return true
		}
		w.q.remove(0)
		w.q.drop(s)
		w.stale--
	}
	return false
}

// Run fires every event due in the next d of virtual time, then sets the
// clock to now+d.
func (w *World) Run(d time.Duration) {
	end := w.at(d)
	for w.live() && w.q.top().at <= end {
		w.Step()
	}
	w.now = end
}

// RunUntil fires events until cond returns true (it is checked before the
// first event and after each one) and reports true, or until limit of virtual
// time has passed and reports false, with the clock at now+limit. It never
// blocks: if the queue runs dry first, time jumps to the limit.
func (w *World) RunUntil(cond func() bool, limit time.Duration) bool {
	end := w.at(limit)
	for !cond() {
		if !w.live() || w.q.top().at > end {
			w.now = end
			return false
		}
		w.Step()
	}
	return true
}
