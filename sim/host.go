package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// A Host is a simulated machine in a world. It owns its timers and pending
// events, and a Persister. Killing a host drops everything it owns except
// the bytes saved in its Persister.
//
// Node objects built on a host must not be called once the host is killed;
// a restarted host gets fresh node objects. Events and timers scheduled by
// an earlier incarnation never fire.
type Host struct {
	w       *World
	id      int
	name    string
	alive   bool
	epoch   uint64 // incarnation; bumped by Kill
	pending int    // live events owned by this incarnation

	persister *Persister
	disks     map[string]*Persister // named persisters, for several nodes on one host
	onKill    []func()

	inspectors []namedInspector // what the incarnation shows of its state (Inspect)

	rng *rand.Rand // the host's stream, made on first use (Rand)

	// The host's clock runs at ppm/1e6 of virtual time. Local time is
	// localBase + (now-realBase)*ppm/1e6.
	ppm       int64
	realBase  time.Duration
	localBase time.Duration

	noise time.Duration // timers fire up to this much late

	diskLatency time.Duration // how long one write of the host's disk takes (SetDiskLatency)
	diskStart   time.Duration // when the disk's last write queued begins
	diskFree    time.Duration // and ends: every save so far is written then
	diskWrites  int           // how many writes the disk has begun or queued
	diskLogs    bool          // each persister's saves in writes of their own (SetDiskLogs)
}

const ppmOne = 1_000_000

// NewHost adds a live host to the world. Hosts are numbered from 0 in the
// order they are added.
func (w *World) NewHost(name string) *Host {
	h := &Host{w: w, id: len(w.hosts), name: name, alive: true, persister: MakePersister(), ppm: ppmOne}
	h.persister.host = h
	w.hosts = append(w.hosts, h)
	return h
}

// NewHosts adds n live hosts named prefix0, prefix1, ... to the world.
func (w *World) NewHosts(n int, prefix string) ([]*Host, error) {
	if n <= 0 {
		return nil, fmt.Errorf("sim: NewHosts: need at least one host, got %d", n)
	}
	hs := make([]*Host, n)
	for i := range hs {
		hs[i] = w.NewHost(fmt.Sprintf("%s%d", prefix, i))
	}
	return hs, nil
}

// Hosts returns the world's hosts, indexed by ID.
func (w *World) Hosts() []*Host { return w.hosts }

// World returns the world the host lives in.
func (h *Host) World() *World { return h.w }

// ID returns the host's index in its world.
func (h *Host) ID() int { return h.id }

// Name returns the name the host was created with.
func (h *Host) Name() string { return h.name }

// String returns the host's name.
func (h *Host) String() string { return h.name }

// Alive reports whether the host is running (not killed).
func (h *Host) Alive() bool { return h.alive }

// Incarnation counts the host's kills: it changes exactly when the host dies,
// so a value saved at some moment tells whether the host has died since.
func (h *Host) Incarnation() uint64 { return h.epoch }

// Persister returns the host's persister: the storage that survives a kill.
func (h *Host) Persister() *Persister { return h.persister }

// PersisterNamed returns the host's persister called name, made empty on
// first use: stable storage for one of several nodes placed on the host
// (replicas of different groups, say), each surviving kills as Persister
// does.
func (h *Host) PersisterNamed(name string) *Persister {
	if h.disks == nil {
		h.disks = map[string]*Persister{}
	}
	ps, ok := h.disks[name]
	if !ok {
		ps = &Persister{host: h}
		h.disks[name] = ps
	}
	return ps
}

// SetDiskLatency gives the host a disk whose every write (and sync) takes
// d: a save to any of the host's persisters (Persister and PersisterNamed:
// a Raft state, say) is written by the disk's next write, which starts at
// once if the disk is idle, else when the write under way ends, and
// carries every save made until it starts (group commit, as a write-ahead
// log does). The network sends nothing from the host until its disk has
// written every save made before the send (DiskFree): a node's messages
// wait for the state behind them to be on disk, as Raft's must. The bytes
// are saved at once all the same, so a kill never loses them. Zero, the
// default, makes saving free. It refuses a negative d.
func (h *Host) SetDiskLatency(d time.Duration) error {
	if d < 0 || d > maxHostDelay {
		return fmt.Errorf("sim: disk latency %v for host %s is negative or past any run", d, h.name)
	}
	h.diskLatency = d
	return nil
}

// DiskFree returns the virtual time at which the host's disk will have
// written every save made so far: at most now if it is idle.
func (h *Host) DiskFree() time.Duration { return h.diskFree }

// SetDiskLogs, if separate, gives each of the host's persisters a log of
// its own on the host's one disk, as a process running several Raft
// nodes, each with its own write-ahead log, has: a save joins only its own
// persister's next write, and the disk still does one write at a time, so
// the writes of n busy persisters take n times as long as one's. Off, the
// default, every save on the host joins the disk's next write, whatever
// its persister (one log for the host's every node).
func (h *Host) SetDiskLogs(separate bool) { h.diskLogs = separate }

// wrote puts one save of ps in the host's disk's next write (ps's own
// next write, with SetDiskLogs).
func (h *Host) wrote(ps *Persister) {
	now := h.w.now
	switch {
	case h.diskLatency == 0:
	case h.diskLogs:
		if now < ps.diskStart { // ps's next write has not begun: the save joins it
			return
		}
		ps.diskStart = max(now, h.diskFree)
		h.diskStart, h.diskFree = ps.diskStart, ps.diskStart+h.diskLatency
		h.diskWrites++
	case now >= h.diskFree: // idle: a write starts now
		h.diskStart, h.diskFree = now, now+h.diskLatency
		h.diskWrites++
	case now < h.diskStart: // the next write has not begun: the save joins it
	default: // a write is under way: the save waits for the next
		h.diskStart, h.diskFree = h.diskFree, h.diskFree+h.diskLatency
		h.diskWrites++
	}
}

// DiskWrites returns how many writes the host's disk has begun or queued,
// over all its incarnations: each takes the disk latency, so their number
// times it is how long the disk has been busy. It is zero while saving is
// free.
func (h *Host) DiskWrites() int { return h.diskWrites }

// Kill stops the host: every event and timer it owns is dropped, and what
// its node objects held in memory is gone. The persisted bytes survive; the
// dead incarnation keeps a detached copy, so nothing it still writes reaches
// its successor. Kill reports whether the host was alive.
func (h *Host) Kill() bool {
	if !h.alive {
		return false
	}
	h.w.Record(Event{Kind: KindKill, Host: h.id, Peer: -1}) // first, so that a recorder sees the state before
	h.alive = false
	h.epoch++
	h.w.markStale(h.pending)
	h.pending = 0
	h.persister = h.adopt(h.persister)
	for name, ps := range h.disks {
		h.disks[name] = h.adopt(ps)
	}
	h.diskStart, h.diskFree = 0, 0 // the writes queued were saved already; the queue dies with the host
	h.w.Fold(TagKill, uint64(h.id))
	h.w.Tracef("kill %s", h.name)
	h.inspectors = nil
	for _, fn := range h.onKill {
		fn()
	}
	return true
}

// adopt returns a copy of ps on the host's disk for its next incarnation,
// and leaves ps, which the dead one keeps, off it.
func (h *Host) adopt(ps *Persister) *Persister {
	ps.host = nil
	c := ps.Copy()
	c.host = h
	return c
}

// OnKill registers fn to run whenever the host is killed, in every
// incarnation, after its events are dropped. The network uses it to fail the
// calls that were waiting for the dead host to answer.
func (h *Host) OnKill(fn func()) { h.onKill = append(h.onKill, fn) }

// Restart brings a killed host back, with its persisted bytes and nothing
// else; the caller builds fresh node objects on it. Restart reports whether
// the host was dead.
func (h *Host) Restart() bool {
	if h.alive {
		return false
	}
	h.alive = true
	h.w.Fold(TagRestart, uint64(h.id))
	h.w.Tracef("restart %s", h.name)
	h.w.Record(Event{Kind: KindRestart, Host: h.id, Peer: -1})
	return true
}

// Now returns the host's local clock, which runs at the host's clock rate
// (see SetClockRate). With the default rate it equals World.Now.
func (h *Host) Now() time.Duration {
	if h.ppm == ppmOne {
		return h.localBase + (h.w.now - h.realBase)
	}
	return h.localBase + scale(h.w.now-h.realBase, h.ppm, ppmOne)
}

// SetClockRate makes the host's clock, and so its timers, run at rate times
// virtual time from now on: 1.01 runs 1% fast (timers fire early), 0.99 runs
// 1% slow. The rate is kept to a millionth.
func (h *Host) SetClockRate(rate float64) error {
	if err := CheckClockRate(rate); err != nil {
		return fmt.Errorf("%w (host %s)", err, h.name)
	}
	h.localBase = h.Now()
	h.realBase = h.w.now
	h.ppm = int64(math.Round(rate * ppmOne))
	h.w.Fold(TagDrift, uint64(h.id), uint64(h.ppm))
	if h.w.Recording() {
		h.w.Record(Event{Kind: KindDrift, Host: h.id, Peer: -1, What: fmt.Sprintf("rate %g", rate)})
	}
	return nil
}

// CheckClockRate returns an error unless rate is a clock rate a host can
// have: a number in [0.001, 1000].
func CheckClockRate(rate float64) error {
	if math.IsNaN(rate) || rate < 0.001 || rate > 1000 {
		return fmt.Errorf("sim: clock rate %v is outside [0.001, 1000]", rate)
	}
	return nil
}

// ClockRate returns the rate set by SetClockRate.
func (h *Host) ClockRate() float64 { return float64(h.ppm) / ppmOne }

// SetTimerNoise makes the host's timers fire late by a random delay of up
// to max, drawn from the host's stream (Rand), as an operating system's timers
// do. Without it, hosts whose timers were set together fire together, for
// ever, which real machines never do.
func (h *Host) SetTimerNoise(max time.Duration) error {
	if max < 0 {
		return fmt.Errorf("sim: timer noise %v for host %s is negative", max, h.name)
	}
	h.noise = max
	return nil
}

// maxHostDelay bounds the delays a host accepts: about 146 years of its own
// clock, far past any simulation, and short enough that neither the timer
// noise nor the stretching of a slow clock can overflow the arithmetic.
const maxHostDelay = math.MaxInt64 / 2

// realDelay converts a delay on the host's clock into virtual time, rounding
// up so that a timer never fires early by the host's own clock, and adds
// the timer noise.
func (h *Host) realDelay(d time.Duration) time.Duration {
	checkDelay(d)
	if d > maxHostDelay-h.noise || d/time.Duration(h.ppm) > maxHostDelay/ppmOne {
		panic(fmt.Sprintf("sim: delay %v on host %s overflows the virtual clock", d, h.name))
	}
	if h.noise > 0 {
		d += h.RandDuration(0, h.noise)
	}
	if h.ppm == ppmOne {
		return d
	}
	return scale(d, ppmOne, h.ppm) + 1
}

// scale returns d*num/den without overflow for any delay a simulation uses.
func scale(d time.Duration, num, den int64) time.Duration {
	return time.Duration(int64(d)/den*num + int64(d)%den*num/den)
}

// After schedules fn to run after d on the host's clock. It does nothing if
// the host is dead, and the event is dropped if the host dies first.
func (h *Host) After(d time.Duration, fn func()) {
	h.Schedule(d, Func(fn))
}

// Schedule schedules a to fire after d on the host's clock, owned by the
// host: it is dropped if the host dies first. It does nothing on a dead host.
func (h *Host) Schedule(d time.Duration, a Action) {
	if !h.alive {
		return
	}
	h.w.schedule(h.w.at(h.realDelay(d)), a, h)
}

// ScheduleFor schedules a to fire d of virtual time from now, owned by the
// given incarnation of h: it is dropped unless h is still that incarnation
// when it fires. The network uses it to deliver replies to the incarnation
// that sent the request.
func (h *Host) ScheduleFor(incarnation uint64, d time.Duration, a Action) {
	if h.epoch != incarnation {
		return
	}
	h.w.schedule(h.w.at(d), a, h)
}
