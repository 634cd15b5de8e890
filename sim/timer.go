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
	pending bool  // in the heap (perhaps as a stale event, if the host died)
	queued  bool  // has a slot in the queue: while pending, and while firing
	slot    int32 // the timer's slot in the queue, while queued
}

// NewTimer returns a stopped timer owned by no host that calls fn when it fires.
func (w *World) NewTimer(fn func()) *Timer {
	return &Timer{w: w, fn: fn}
}

// NewTimer returns a stopped timer owned by h that calls fn when it fires.
func (h *Host) NewTimer(fn func()) *Timer {
	return &Timer{w: h.w, host: h, epoch: h.epoch, fn: fn}
}

// owner names the timer's host, or the world for a timer of no host.
func (t *Timer) owner() string {
	if t.host == nil {
		return "the world"
	}
	return t.host.name
}

// hostID returns the timer's host's ID, or -1 for a timer of no host.
func (t *Timer) hostID() int {
	if t.host == nil {
		return -1
	}
	return t.host.id
}

// Fire calls the timer's function; the world calls it when the timer is due.
func (t *Timer) Fire() { t.fn() }

// Reset (re)arms the timer to fire d from now, on its host's clock,
// cancelling any earlier arming. It does nothing but stop the timer if the
// timer's host has died since the timer was made.
func (t *Timer) Reset(d time.Duration) {
	w := t.w
	if t.host == nil {
		w.arm(t, w.at(d))
		return
	}
	if t.host.epoch != t.epoch || !t.host.alive {
		t.Stop()
		return
	}
	w.arm(t, w.at(t.host.realDelay(d)))
}

// arm queues t to fire at, moving its event if it is already queued.
func (w *World) arm(t *Timer, at time.Duration) {
	w.seq++
	if t.pending {
		w.q.move(t.slot, at, w.seq)
		return
	}
	if t.host != nil {
		t.host.pending++
	}
	if t.queued {
		w.q.requeue(at, w.seq, t.slot)
	} else {
		t.slot = w.q.push(at, w.seq, event{act: t, host: t.host, timer: t, epoch: t.epoch})
		t.queued = true
	}
	t.pending = true
}

// Stop cancels the timer. It reports whether the timer was armed.
func (t *Timer) Stop() bool {
	if !t.pending {
		return false
	}
	t.w.q.remove(int(t.w.q.pos[t.slot]))
	t.w.q.drop(t.slot)
	switch {
	case t.host == nil:
	case t.host.epoch == t.epoch:
		t.host.pending--
	default:
		t.w.stale-- // Kill counted it as stale
		return false
	}
	return true
}

// Pending reports whether the timer is armed.
func (t *Timer) Pending() bool {
	return t.pending && (t.host == nil || t.host.epoch == t.epoch)
}
