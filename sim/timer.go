package sim

import "time"

// A Timer calls a function once after a delay, and can be stopped or reset.
// A host's timers run on the host's clock and die with it. Re-arming a Timer
// allocates nothing, so a node can reset its election timer on every
// heartbeat cheaply.
type Timer struct {
	w       *World
	host    *Host
	epoch   uint64 // the host incarnation that made the timer
	fn      func()
	gen     uint64 // bumped by Stop and Reset; queued events of older gens are stale
	pending bool
}

// NewTimer returns a stopped timer owned by no host that calls fn when it fires.
func (w *World) NewTimer(fn func()) *Timer {
	return &Timer{w: w, fn: fn}
}

// NewTimer returns a stopped timer owned by h that calls fn when it fires.
func (h *Host) NewTimer(fn func()) *Timer {
	return &Timer{w: h.w, host: h, epoch: h.epoch, fn: fn}
}

// Fire calls the timer's function; the world calls it when the timer is due.
func (t *Timer) Fire() { t.fn() }

// Reset (re)arms the timer to fire d from now, on its host's clock,
// cancelling any earlier arming. It does nothing if the timer's host has died
// since the timer was made.
func (t *Timer) Reset(d time.Duration) {
	t.Stop()
	if t.host == nil {
		t.w.push(event{at: t.w.at(d), act: t, timer: t, gen: t.gen}, nil)
		t.pending = true
		return
	}
	if t.host.epoch != t.epoch || !t.host.alive {
		return
	}
	t.w.push(event{at: t.w.at(t.host.realDelay(d)), act: t, timer: t, gen: t.gen, host: t.host}, t.host)
	t.pending = true
}

// Stop cancels the timer. It reports whether the timer was armed.
func (t *Timer) Stop() bool {
	if !t.pending {
		return false
	}
	t.pending = false
	t.gen++
	if t.host == nil || t.host.epoch == t.epoch {
		// Still counted as live; a dead incarnation's events were
		// already marked stale by Kill.
		if t.host != nil {
			t.host.pending--
		}
		t.w.markStale(1)
	}
	return true
}

// Pending reports whether the timer is armed.
func (t *Timer) Pending() bool {
	return t.pending && (t.host == nil || t.host.epoch == t.epoch)
}
