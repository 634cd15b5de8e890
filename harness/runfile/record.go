package runfile

import (
	"fmt"
	"slices"

	"github.com/replab/replab/sim"
)

// A Recorder is a sim.Recorder that writes a run down: every event the
// world records and, after each, the state of the hosts it touched (its
// Host and Peer), kept only where it differs from what that host last
// showed, so that a long run's file stays small.
//
// "After an event" is just before the next one: the world records an event
// while handling it (a delivery is recorded before the handler runs), so
// the recorder asks the touched hosts for their state lazily, when the
// next event comes or the recording ends (File).
//
//	rec := runfile.NewRecorder(w)
//	w.SetRecorder(rec)
//	... run ...
//	f := rec.File() // Events, States and Hosts filled in
type Recorder struct {
	w       *sim.World
	events  []Event
	states  []State
	touched [2]int        // the last event's hosts, -1 for none
	shown   [][]sim.Field // what each host last showed, by ID
}

// NewRecorder returns a recorder of w's events. It does not set itself as
// w's recorder: the caller does, with w.SetRecorder.
func NewRecorder(w *sim.World) *Recorder {
	return &Recorder{w: w, touched: [2]int{-1, -1}}
}

// Record records e (sim.Recorder), after noting the state the last event
// left its hosts in.
func (r *Recorder) Record(e sim.Event) {
	r.inspect()
	r.events = append(r.events, Event{At: int64(e.At), Kind: e.Kind, Host: e.Host, Peer: e.Peer, ID: e.ID, Size: e.Size, What: e.What})
	r.touched = [2]int{e.Host, e.Peer}
}

// inspect stores the state of the last event's hosts, for each that shows
// something other than what it last showed.
func (r *Recorder) inspect() {
	hosts := r.w.Hosts()
	for k, id := range r.touched {
		if id < 0 || id >= len(hosts) || (k == 1 && id == r.touched[0]) {
			continue
		}
		fields := hosts[id].State()
		for len(r.shown) <= id {
			r.shown = append(r.shown, nil)
		}
		if slices.Equal(fields, r.shown[id]) {
			continue
		}
		r.shown[id] = fields
		r.states = append(r.states, State{Event: len(r.events) - 1, Host: id, Fields: fields})
	}
	r.touched = [2]int{-1, -1}
}

// Len returns how many events have been recorded so far: the index the
// next one will have.
func (r *Recorder) Len() int { return len(r.events) }

// File returns what has been recorded as a run file: the world's hosts,
// the events, the states, and the world's summary; the caller fills in the
// rest (scenario, seed, faults, ops, verdict). The recording may go on
// after.
func (r *Recorder) File() *File {
	r.inspect()
	f := &File{
		Version: Version,
		Events:  slices.Clip(r.events),
		States:  slices.Clip(r.states),
		Verdict: Verdict{At: -1},
		Summary: SummaryOf(r.w.Summary()),
	}
	for _, h := range r.w.Hosts() {
		f.Hosts = append(f.Hosts, h.Name())
	}
	return f
}

// SummaryOf returns s as a run file holds it.
func SummaryOf(s sim.Summary) Summary {
	return Summary{Now: int64(s.Now), Events: s.Events, Hash: fmt.Sprintf("%016x", s.Hash)}
}

// Diverge returns the index of the first event at which two recordings of
// a run part (the shorter one's length if one is the start of the other),
// or -1 if their events are the same.
func Diverge(a, b []Event) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// Format describes the event in one line, naming hosts by hosts (by
// number where hosts is too short): "send s0→s2 call 41 Raft.AppendEntries
// 312 B".
func (e Event) Format(hosts []string) string {
	name := func(h int) string {
		if h >= 0 && h < len(hosts) {
			return hosts[h]
		}
		return fmt.Sprintf("host %d", h)
	}
	s := string(e.Kind)
	switch {
	case e.Host >= 0 && e.Peer >= 0:
		s += " " + name(e.Host) + "→" + name(e.Peer)
	case e.Host >= 0:
		s += " " + name(e.Host)
	}
	switch e.Kind {
	case sim.KindSend, sim.KindDeliver, sim.KindDup, sim.KindReply, sim.KindLost, sim.KindDone:
		s += fmt.Sprintf(" call %d", e.ID)
	case sim.KindInvoke, sim.KindReturn:
		s += fmt.Sprintf(" client %d", e.ID)
	}
	if e.What != "" {
		s += " " + e.What
	}
	if e.Size > 0 {
		s += fmt.Sprintf(" %d B", e.Size)
	}
	return s
}
