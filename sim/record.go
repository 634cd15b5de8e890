package sim

import (
	"slices"
	"time"
)

// A Kind says what a recorded event was.
type Kind string

// The kinds of recorded events. The world records timers, kills, restarts
// and clock changes itself; the layers above record the rest.
const (
	KindTimer   Kind = "timer"   // a host's timer fired
	KindKill    Kind = "kill"    // a host died
	KindRestart Kind = "restart" // a host came back
	KindDrift   Kind = "drift"   // a host's clock rate changed

	KindSend    Kind = "send"    // a request left its caller (labrpc)
	KindDeliver Kind = "deliver" // a request reached its server
	KindDup     Kind = "dup"     // a request was delivered a second time
	KindReply   Kind = "reply"   // a server's handler answered
	KindLost    Kind = "lost"    // a request or reply was lost
	KindDone    Kind = "done"    // a call returned to its caller, well or not

	KindFault Kind = "fault" // the monkey applied or healed a fault (chaos)

	KindInvoke Kind = "invoke" // a client began an operation (a workload)
	KindReturn Kind = "return" // a client's operation ended
)

// Kinds are all the kinds of recorded events, for a reader of a recording
// to tell a known kind from a typo.
var Kinds = []Kind{
	KindTimer, KindKill, KindRestart, KindDrift,
	KindSend, KindDeliver, KindDup, KindReply, KindLost, KindDone,
	KindFault, KindInvoke, KindReturn,
}

// An Event is one thing a world did, as a recording holds it.
type Event struct {
	At   time.Duration // virtual time; Record sets it
	Kind Kind
	// Host is the host it happened on (a message's sender for send, its
	// receiver for deliver); -1 for none.
	Host int
	// Peer is a message's other end; -1 for none.
	Peer int
	// ID names what the event belongs to: a call's number for messages, a
	// client's for its operations.
	ID   uint64
	Size int    // a message's size in bytes
	What string // a method, a fault, an operation, a timer's owner
}

// A Recorder receives what a world does, event by event, when a recording
// is asked for (see SetRecorder). Layers record only when Recording
// reports true, so a world that records nothing pays a branch.
type Recorder interface {
	Record(e Event)
}

// SetRecorder makes the world send every recorded event to r (nil stops
// recording).
func (w *World) SetRecorder(r Recorder) { w.rec = r }

// Recording reports whether a recorder is set, so that callers can skip
// building events nobody reads.
func (w *World) Recording() bool { return w.rec != nil }

// Record stamps e with the virtual time and passes it to the recorder, if
// any.
func (w *World) Record(e Event) {
	if w.rec == nil {
		return
	}
	e.At = w.now
	w.rec.Record(e)
}

// A Field is one named value of a node's state, as an Inspector shows it.
type Field struct{ Name, Value string }

// An Inspector is a node or state machine that can show its state at any
// moment as a short list of named values (a Raft peer: role, term, commit
// index...). Implementing it is optional; it is asked only while the world
// records.
type Inspector interface {
	Inspect() []Field
}

// Inspect adds i to what the host shows of its state, under name (a host
// may carry several nodes: a Raft peer and the state machine on it). The
// incarnation's inspectors go with it when the host is killed; a restarted
// host's fresh nodes add theirs again. A name added again replaces the
// earlier inspector.
func (h *Host) Inspect(name string, i Inspector) {
	for k := range h.inspectors {
		if h.inspectors[k].name == name {
			h.inspectors[k].i = i
			return
		}
	}
	h.inspectors = append(h.inspectors, namedInspector{name: name, i: i})
}

type namedInspector struct {
	name string
	i    Inspector
	// fields are the names of the fields the inspector showed last, by
	// position, and names those names qualified ("raft.term"), so that
	// State, called after every event of a recording, does not build the
	// same names again each time.
	fields, names []string
}

// qualified returns "name.field" for the inspector's field j.
func (n *namedInspector) qualified(j int, field string) string {
	if j < len(n.fields) && n.fields[j] == field {
		return n.names[j]
	}
	q := n.name + "." + field
	if j < len(n.fields) {
		n.fields[j], n.names[j] = field, q
	} else {
		n.fields, n.names = append(n.fields, field), append(n.names, q)
	}
	return q
}

// State returns what the host's inspectors show, each field named
// "inspector.field", in the order the inspectors were added; nil for a
// dead host or one without inspectors.
func (h *Host) State() []Field {
	if !h.alive {
		return nil
	}
	size := 0
	for k := range h.inspectors {
		size += len(h.inspectors[k].fields)
	}
	out := make([]Field, 0, size)
	for k := range h.inspectors {
		n := &h.inspectors[k]
		for j, f := range n.i.Inspect() {
			out = append(out, Field{n.qualified(j, f.Name), f.Value})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return slices.Clip(out)
}
