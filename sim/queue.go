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

// event is one entry of the queue. It is stale, and skipped when popped, if
// its owner has been killed since it was scheduled (epoch differs) or, for a
// timer, if the timer has been stopped or reset since (gen differs).
type event struct {
	at    time.Duration
	seq   uint64
	act   Action
	host  *Host
	epoch uint64
	timer *Timer
	gen   uint64
}

// stale reports whether e should be dropped instead of fired.
func (e *event) stale() bool {
	if e.host != nil && e.host.epoch != e.epoch {
		return true
	}
	return e.timer != nil && e.timer.gen != e.gen
}

// queue is a binary min-heap of events ordered by (at, seq). It is written out
// by hand, on values rather than an interface, because it is the innermost
// loop of every simulation.
type queue []event

func (q queue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *queue) push(e event) {
	*q = append(*q, e)
	q.up(len(*q) - 1)
}

func (q *queue) pop() event {
	h := *q
	n := len(h) - 1
	top := h[0]
	h[0] = h[n]
	h[n] = event{} // let the garbage collector have the action
	*q = h[:n]
	if n > 0 {
		q.down(0)
	}
	return top
}

func (q queue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (q queue) down(i int) {
	n := len(q)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}

// compact drops every stale event and restores the heap order.
func (q *queue) compact() {
	h := *q
	live := h[:0]
	for _, e := range h {
		if !e.stale() {
			live = append(live, e)
		}
	}
	clear(h[len(live):])
	*q = live
	for i := len(live)/2 - 1; i >= 0; i-- {
		live.down(i)
	}
}
