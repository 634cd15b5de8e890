// Package runfile holds the run file: one run of the lab written down whole
// (its seed and configuration, the faults as applied, every event, the
// clients' operations, what each node showed of its state, and the
// verdict) so that it can be replayed, shrunk and drawn.
//
// A run file is one JSON object. Its Version says which layout it has; a
// reader refuses any other. Write writes one list element a line; Read
// (and Load) refuse a file of another version, cut short, or edited into
// contradiction (a host out of range, events out of time order, a state
// of an event past the last), naming the field. A Recorder, set as a
// world's sim.Recorder, writes a run down as it happens (testbed.Run's
// Record does so for any run on the testbed).
package runfile

import "github.com/replab/replab/sim"

// Version is the layout of run files this package reads and writes.
const Version = 1

// A File is one run, written down.
type File struct {
	Version int `json:"version"`
	// Scenario names what was run (a sweep's scenario, an experiment); with
	// Seed and Drawn it is what replays the run.
	Scenario string `json:"scenario"`
	// Plant names the planted bug the scenario ran with, if any (labsim
	// sweep -plant).
	Plant string  `json:"plant,omitempty"`
	Seed  int64   `json:"seed"`
	Drawn []Param `json:"drawn,omitempty"` // the configuration the seed drew, in order
	// Hosts are the world's hosts' names, by ID.
	Hosts []string `json:"hosts"`
	// Faults are the faults as the monkey applied them, in order.
	Faults []Fault `json:"faults"`
	// Events are everything the world recorded, in the order it happened.
	Events []Event `json:"events"`
	// States are what the hosts showed of their state (sim.Inspector): one
	// per host whose state an event changed, after that event.
	States []State `json:"states"`
	// Ops are the clients' operations, in the order they began.
	Ops []Op `json:"ops"`
	// Verdict is what the checks found.
	Verdict Verdict `json:"verdict"`
	// Summary is the world's at the end: what a replay must match.
	Summary Summary `json:"summary"`
	// Shrunk, for a shrunk run, is how it differs from its seed's run.
	Shrunk *Shrunk `json:"shrunk,omitempty"`
}

// A Param is one drawn parameter of the configuration.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// A Fault is one fault, healed or struck, as the fault log has it.
type Fault struct {
	At   int64  `json:"at"` // virtual nanoseconds
	Text string `json:"text"`
	// Hosts are the hosts it struck (a partition's, a kill's), by ID.
	Hosts []int `json:"hosts,omitempty"`
	Heal  bool  `json:"heal,omitempty"` // it ended faults
}

// An Event is one recorded event (see sim.Event), with short keys: a run
// file holds tens of thousands.
type Event struct {
	At   int64    `json:"t"` // virtual nanoseconds
	Kind sim.Kind `json:"k"`
	Host int      `json:"h"`            // -1: none
	Peer int      `json:"p"`            // -1: none
	ID   uint64   `json:"id,omitempty"` // a call's number, a client's
	Size int      `json:"n,omitempty"`
	What string   `json:"w,omitempty"`
}

// A State is what one host showed of its state after one event. In JSON
// its fields are [name, value] pairs: {"e":7,"h":1,"f":[["raft.term","2"],
// ...]}, and a host down shows none. Write writes a state that changes
// only some of the values the host showed last, under the same names, as
// those changes alone, "d" for "f"; Read puts the whole state back.
type State struct {
	Event  int         `json:"e"` // the index of the event in Events
	Host   int         `json:"h"`
	Fields []sim.Field `json:"f"` // nil: the host is down

	delta []sim.Field // as read, before Read resolves it: the fields that changed
}

// An Op is one client operation.
type Op struct {
	Client int    `json:"client"`
	Call   int64  `json:"call"`   // virtual nanoseconds
	Return int64  `json:"return"` // -1 if it never returned
	Input  string `json:"input"`  // "put x=1", "txn [r x] [w y 2]"
	Output string `json:"output,omitempty"`
	Key    string `json:"key,omitempty"` // the partition the checker judged it in
}

// A Verdict is what the checks found of a run.
type Verdict struct {
	// Problem is "" if the run passed.
	Problem string `json:"problem,omitempty"`
	// Kind is the kind of violation (linearizability, stall, storm, ...),
	// what shrinking keeps.
	Kind string `json:"kind,omitempty"`
	// Ops are the operations the verdict names, by index in Ops: the
	// violating one first, then its witnesses.
	Ops []int `json:"ops,omitempty"`
	// At is the event, by index in Events, at which the violation shows
	// (the violating operation's return, a stall's deadline); -1 if none.
	At int `json:"at"`
}

// A Summary is a run's identity at its end (see sim.Summary).
type Summary struct {
	Now    int64  `json:"now"` // virtual nanoseconds
	Events uint64 `json:"events"`
	Hash   string `json:"hash"` // the trace hash, 16 hex digits
}
