package sim

import "time"

// An Action is something a world does at a scheduled virtual time.
// Types that are scheduled often (a message in flight, say) implement it
// directly so that scheduling them allocates nothing beyond the value itself.
type Action interface {
	Fire()
}

// Func adapts a plain function to an Action.
type Func func()

// Fire calls f.
func (f Func) Fire() { f() }

// An event is what the queue holds for one scheduled action. It is stale,
// and dropped instead of fired, if its owner has been killed since it was
// scheduled (epoch differs).
type event struct {
	act   Action
	host  *Host
	timer *Timer // the timer the event fires, if any
	epoch uint64
}

// stale reports whether e should be dropped instead of fired.
func (e *event) stale() bool {
	return e.host != nil && e.host.epoch != e.epoch
}

// An entry orders one event in the heap. It holds no pointers, so that
// moving entries costs the garbage collector nothing.
type entry struct {
	at   time.Duration
	seq  uint64
	slot int32 // the event's index in the slab
}

func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// queue is a 4-ary min-heap of entries ordered by (at, seq) over a slab of
// events. Events stay put in the slab, and freed slots are reused, so a
// world that schedules as much as it fires allocates nothing, and a timer
// that is reset moves its own entry instead of leaving a dead one behind.
// It is written out by hand because it is the innermost loop of every
// simulation.
type queue struct {
	heap []entry
	slab []event
	pos  []int32 // by slot: the index of the slot's entry in heap
	free []int32 // free slots in slab
}

// len returns the number of queued events.
func (q *queue) len() int { return len(q.heap) }

// top returns the earliest entry; the queue must not be empty.
func (q *queue) top() entry { return q.heap[0] }

// push queues e at (at, seq) and returns its slot.
func (q *queue) push(at time.Duration, seq uint64, e event) int32 {
	var s int32
	if n := len(q.free); n > 0 {
		s = q.free[n-1]
		q.free = q.free[:n-1]
		q.slab[s] = e
	} else {
		s = int32(len(q.slab))
		q.slab = append(q.slab, e)
		q.pos = append(q.pos, 0)
	}
	q.requeue(at, seq, s)
	return s
}

// requeue queues the event already in slot s at (at, seq).
func (q *queue) requeue(at time.Duration, seq uint64, s int32) {
	q.heap = append(q.heap, entry{at: at, seq: seq, slot: s})
	q.up(len(q.heap) - 1)
}

// remove takes the entry at heap index i out of the heap; its slot stays
// taken.
func (q *queue) remove(i int) {
	n := len(q.heap) - 1
	last := q.heap[n]
	q.heap = q.heap[:n]
	if i < n {
		q.heap[i] = last
		q.fix(i)
	}
}

// pop takes the earliest entry out of the heap; its slot stays taken. It
// moves the hole left at the root down to the bottom along the earlier
// child, then fills it with the last entry, which mostly belongs near
// the bottom anyway: one comparison a level fewer than remove(0).
func (q *queue) pop() {
	n := len(q.heap) - 1
	last := q.heap[n]
	q.heap = q.heap[:n]
	if n == 0 {
		return
	}
	h := q.heap
	i := 0
	for m := q.earliestChild(0); m >= 0; m = q.earliestChild(i) {
		h[i] = h[m]
		q.pos[h[i].slot] = int32(i)
		i = m
	}
	h[i] = last
	q.up(i)
}

// release frees slot s.
func (q *queue) release(s int32) {
	q.slab[s] = event{} // let the garbage collector have the action
	q.free = append(q.free, s)
}

// move reschedules the event in slot s to (at, seq).
func (q *queue) move(s int32, at time.Duration, seq uint64) {
	i := int(q.pos[s])
	q.heap[i].at, q.heap[i].seq = at, seq
	q.fix(i)
}

// fix restores the heap order after the entry at i changed.
func (q *queue) fix(i int) { q.up(q.down(i)) }

// up moves the entry at i towards the root until it is in order.
func (q *queue) up(i int) {
	h := q.heap
	x := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !x.before(h[p]) {
			break
		}
		h[i] = h[p]
		q.pos[h[i].slot] = int32(i)
		i = p
	}
	h[i] = x
	q.pos[x.slot] = int32(i)
}

// down moves the entry at i towards the leaves until it is in order, and
// returns where it ends.
func (q *queue) down(i int) int {
	h := q.heap
	x := h[i]
	for {
		m := q.earliestChild(i)
		if m < 0 || !h[m].before(x) {
			break
		}
		h[i] = h[m]
		q.pos[h[i].slot] = int32(i)
		i = m
	}
	h[i] = x
	q.pos[x.slot] = int32(i)
	return i
}

// earliestChild returns the index of the earliest of i's children, or -1
// if i has none.
func (q *queue) earliestChild(i int) int {
	h := q.heap
	c := 4*i + 1
	if c >= len(h) {
		return -1
	}
	m := c
	for j := c + 1; j < min(c+4, len(h)); j++ {
		if h[j].before(h[m]) {
			m = j
		}
	}
	return m
}

// compact drops every stale event and restores the heap order.
func (q *queue) compact() {
	live := q.heap[:0]
	for _, en := range q.heap {
		if e := &q.slab[en.slot]; e.stale() {
			q.drop(en.slot)
			continue
		}
		live = append(live, en)
	}
	q.heap = live
	for i := len(live) - 1; i >= 0; i-- {
		q.pos[live[i].slot] = int32(i)
	}
	for i := (len(live)+2)/4 - 1; i >= 0; i-- { // the last parent down to the root
		q.down(i)
	}
}

// drop frees the slot of an event taken out of the heap unfired, and tells
// its timer, if any.
func (q *queue) drop(s int32) {
	if t := q.slab[s].timer; t != nil {
		t.pending, t.queued = false, false
	}
	q.release(s)
}
