package sim

import (
	"bytes"
	"time"
)

// A Persister is a host's stable storage, in the shape of the 6.5840 labs:
// a Raft state blob and a snapshot, saved together atomically. It survives
// its host's death; nothing else does.
type Persister struct {
	raftstate []byte
	snapshot  []byte
	host      *Host // the host whose disk it is on, if any: saves take its disk's time
	// diskStart is when the latest write of this persister's own log
	// queued on its host's disk begins (Host.SetDiskLogs).
	diskStart time.Duration
}

// MakePersister returns an empty persister.
func MakePersister() *Persister { return &Persister{} }

// Copy returns an independent persister holding the same bytes.
func (ps *Persister) Copy() *Persister {
	return &Persister{raftstate: bytes.Clone(ps.raftstate), snapshot: bytes.Clone(ps.snapshot)}
}

// Save atomically replaces the Raft state and the snapshot with copies of
// the given bytes.
func (ps *Persister) Save(raftstate, snapshot []byte) {
	ps.raftstate = bytes.Clone(raftstate)
	ps.snapshot = bytes.Clone(snapshot)
	ps.wrote()
}

// SaveNoCopy is Save without the copies: the persister keeps the slices it
// is given. It is for nodes whose state is large and changes a little at a
// time, so that saving does not cost the whole state. The caller may
// change the bytes it saved only in the same event in which it saves them
// again: a host dies only between events, and what it had saved last is
// copied then, so no one can tell the difference.
func (ps *Persister) SaveNoCopy(raftstate, snapshot []byte) {
	ps.raftstate = raftstate
	ps.snapshot = snapshot
	ps.wrote()
}

// wrote charges a save to the disk of the persister's host, if it has one.
func (ps *Persister) wrote() {
	if ps.host != nil {
		ps.host.wrote(ps)
	}
}

// ReadRaftState returns a copy of the saved Raft state.
func (ps *Persister) ReadRaftState() []byte { return bytes.Clone(ps.raftstate) }

// RaftStateSize returns the size in bytes of the saved Raft state.
func (ps *Persister) RaftStateSize() int { return len(ps.raftstate) }

// ReadSnapshot returns a copy of the saved snapshot.
func (ps *Persister) ReadSnapshot() []byte { return bytes.Clone(ps.snapshot) }

// SnapshotSize returns the size in bytes of the saved snapshot.
func (ps *Persister) SnapshotSize() int { return len(ps.snapshot) }
