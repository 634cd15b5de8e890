// Package raftapi is the API of the Raft lab: what a Raft node offers its
// service and its tests, whoever wrote it. The test catalogue (rafttest)
// and the course kit drive any implementation through these types alone;
// package raft is one implementation.
//
// A node lives in a simulated world (package sim): it is a plain value
// whose methods the world calls, one event at a time. It never blocks,
// sleeps, locks or starts a goroutine; it sets timers on its host, sends
// RPCs through its peers' ends with a callback for the reply, and hands
// committed entries to its service through the apply callback, in log
// order. The guide docs/writing-raft.md shows how the lab's idioms map onto
// this.
package raftapi

import (
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// ApplyMsg is what a node hands its service, in log order: a committed
// command (CommandValid) or a snapshot received from the leader
// (SnapshotValid).
type ApplyMsg struct {
	CommandValid bool
	Command      any
	CommandIndex int
	CommandTerm  int

	SnapshotValid bool
	Snapshot      []byte
	SnapshotTerm  int
	SnapshotIndex int
}

// Raft is what every node must offer: the lab's API. The test catalogue
// needs nothing more.
type Raft interface {
	// Start proposes command for the log. A leader returns the index the
	// command will have if it is ever committed, its term and true; any
	// other node returns false and does nothing. It never waits.
	Start(command any) (index, term int, isLeader bool)
	// GetState returns the node's term and whether it believes it leads.
	GetState() (term int, isLeader bool)
	// Snapshot tells the node that the service's state up to and
	// including index is in snapshot, so the log up to index can go.
	Snapshot(index int, snapshot []byte)
	// Kill stops the node: it must ignore everything after.
	Kill()
}

// Make is the signature of a node's constructor: node me of peers
// (peers[me] is unused) on host, restored from what persister holds,
// delivering committed entries and snapshots through apply. The node's
// RPC handlers are its exported methods of the labrpc shape, registered
// under its type's name (a type called Raft serves "Raft.RequestVote").
type Make func(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, apply func(ApplyMsg)) (Raft, error)

// A LeadershipWatcher tells its service when it starts and stops leading,
// so that the service can answer requests it was waiting to commit at
// once instead of polling GetState. Optional: services that need it check
// for it.
type LeadershipWatcher interface {
	// OnLeadership asks the node to call fn when it becomes leader of a
	// term (leading true) and when it stops leading that term (leading
	// false). Each call adds a listener; every listener hears every
	// change, in the order they subscribed. fn runs inside the node's
	// event and must not call back into the node.
	OnLeadership(fn func(term int, leading bool))
}

// A Reader serves linearizable reads without writing to the log. Optional.
type Reader interface {
	// ReadIndex, on a leader that has committed an entry of its term,
	// returns true and later calls done(index, true) once a majority has
	// confirmed its leadership after the call, or done(0, false) if it
	// loses leadership first; a read served after applying up to index is
	// linearizable. If it returns false, done is never called.
	ReadIndex(done func(index int, ok bool)) bool
	// LeaseRead reports whether the leader holds a lease, and if so the
	// index a read must be served at or after.
	LeaseRead() (index int, ok bool)
}

// A Servicer registers its RPC handlers itself, typed (see labrpc.Handle),
// so that the network calls them without reflection. Optional.
type Servicer interface {
	Service() *labrpc.Service
}

// ServiceOf returns rf's RPC service: the one it registers itself if it is
// a Servicer, or else labrpc.MakeService(rf), which finds its handlers by
// reflection.
func ServiceOf(rf Raft) *labrpc.Service {
	if s, ok := rf.(Servicer); ok {
		return s.Service()
	}
	return labrpc.MakeService(rf)
}
