package sim

import (
	"fmt"
	"slices"
	"time"
)

// Choosing what fires next, for a search over a world's schedules.
//
// Step fires the earliest event. A search (harness/search) instead asks
// Enabled which events could fire next in some run the world could have
// produced, and fires the one it picks with Choose. The rule that keeps the
// runs possible: a message in flight may be delayed, so every message due
// by the earliest other event is enabled, in any order; any other event (a
// timer, a client's or harness's function, a call's failure) fires at its
// time, never early and never skipped, so only the earliest of them is
// enabled. Firing an event moves the clock to its time, or leaves it where
// it is if that has passed (a message delayed past its earliest arrival).
// A message may also be dropped instead, or duplicated (Choose's Fate). Step and Run never look at
// any of this: a world that nobody searches pays nothing for it.

// A Message is an Action that carries something across a network, which a
// search may deliver later than it is due or drop. labrpc's requests and
// replies are Messages.
type Message interface {
	Action
	// Message describes the message, and reports false if the action is
	// not a message just now (a reply that has reached its caller and
	// waits for the caller's CPU, say), so that it fires in order.
	Message() (MessageInfo, bool)
	// Drop loses the message instead of delivering it, as a lossy network
	// would: the sender learns of it as it would of a loss.
	Drop()
}

// A Duplicator is a Message that can be duplicated: Duplicate puts a copy
// of it in flight, due now, as a network that duplicates would. It is
// called only while the message's info says it is Duplicable.
type Duplicator interface {
	Message
	Duplicate()
}

// MessageInfo describes a message in flight.
type MessageInfo struct {
	From, To int    // host IDs; -1 for none (a test driver's end)
	What     string // the method, and whether it is the request or reply
	// Digest, if set, computes a digest of the message's content, for a
	// search that hashes states; it is called only by such a search.
	Digest func() uint64
	// Duplicable says that the message can be duplicated now (it is a
	// Duplicator that has not been duplicated yet, say).
	Duplicable bool
}

// A Choice is one event that may fire next (see Enabled).
type Choice struct {
	At      time.Duration // when it is due; it fires at max(At, Now)
	Seq     uint64        // the order it was scheduled in
	Host    int           // the host that owns it; -1 for none
	Message bool          // whether it is a message, described by Info
	Info    MessageInfo
	Timer   bool // whether it is a Timer firing (else a function or message)

	slot int32
}

// String describes the choice on one line.
func (c Choice) String() string {
	switch {
	case c.Message:
		return fmt.Sprintf("deliver %s %d→%d (due %v)", c.Info.What, c.Info.From, c.Info.To, c.At)
	case c.Timer:
		return fmt.Sprintf("timer of host %d at %v", c.Host, c.At)
	}
	return fmt.Sprintf("event of host %d at %v", c.Host, c.At)
}

// Queued appends to buf (which it reuses) every event queued and live, in
// the order Step would fire them.
func (w *World) Queued(buf []Choice) []Choice {
	buf = buf[:0]
	for _, en := range w.q.heap {
		e := &w.q.slab[en.slot]
		if e.stale() {
			continue
		}
		c := Choice{At: en.at, Seq: en.seq, Host: -1, Timer: e.timer != nil, slot: en.slot}
		if e.host != nil {
			c.Host = e.host.id
		}
		if m, ok := e.act.(Message); ok && e.timer == nil {
			c.Info, c.Message = m.Message()
			if _, dup := m.(Duplicator); !dup {
				c.Info.Duplicable = false
			}
		}
		buf = append(buf, c)
	}
	slices.SortFunc(buf, func(a, b Choice) int {
		return entry{at: a.At, seq: a.Seq}.cmp(entry{at: b.At, seq: b.Seq})
	})
	return buf
}

// Enabled appends to buf (which it reuses) the events that may fire next:
// every message due by the earliest other event, and that event, in the
// order Step would fire them, so that choosing the first every time is
// Step. It returns buf empty if nothing is queued.
func (w *World) Enabled(buf []Choice) []Choice {
	buf = w.Queued(buf)
	out := buf[:0]
	for _, c := range buf {
		if !c.Message {
			// The earliest other event: every message due by it is in.
			return append(out, c)
		}
		out = append(out, c)
	}
	return out
}

// cmp orders entries as the heap does.
func (a entry) cmp(b entry) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}

// A Fate is what Choose does with the event it fires.
type Fate int

// The fates.
const (
	Deliver   Fate = iota // fire it, as Step would
	Drop                  // lose a message instead (Message.Drop)
	Duplicate             // deliver a message and leave a copy of it in flight (Message.Duplicate)
)

// Choose fires c, one of the choices the latest call to Enabled returned,
// moving the clock to its time if that is later than now, to the fate f.
// Choose panics, naming it, if c is no longer queued (nothing may fire
// between Enabled and Choose), or if f is Drop or Duplicate and c is not
// a message (or, for Duplicate, one that cannot be duplicated).
func (w *World) Choose(c Choice, f Fate) {
	switch {
	case f == Drop && !c.Message:
		panic(fmt.Sprintf("sim: Choose: cannot drop %v, which is not a message", c))
	case f == Duplicate && !c.Info.Duplicable:
		panic(fmt.Sprintf("sim: Choose: cannot duplicate %v", c))
	}
	i := int(c.slot)
	if i < 0 || i >= len(w.q.pos) || int(w.q.pos[c.slot]) >= len(w.q.heap) {
		panic(fmt.Sprintf("sim: Choose: %v is not queued", c))
	}
	en := w.q.heap[w.q.pos[c.slot]]
	if en.seq != c.Seq || en.slot != c.slot {
		panic(fmt.Sprintf("sim: Choose: %v is not queued", c))
	}
	e := w.q.slab[c.slot]
	w.q.remove(int(w.q.pos[c.slot]))
	en.at = max(en.at, w.now)
	if f == Deliver {
		w.run(en, e)
		return
	}
	// A message (never a timer): run's steps, with the fate's in between.
	if e.host != nil {
		e.host.pending--
	}
	w.fire(en, e.host)
	w.q.release(en.slot)
	if f == Drop {
		e.act.(Message).Drop()
		return
	}
	e.act.(Duplicator).Duplicate() // the copy is made before the handler can change what it got
	e.act.Fire()
}
