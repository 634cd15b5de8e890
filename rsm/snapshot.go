package rsm

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/replab/replab/rsm/wire"
)

// Snapshot returns the server's state as the bytes it would give Raft
// for a snapshot: the applied index, the session table and the state
// machine's snapshot. A service whose replicas hold different states,
// which no replica's snapshot can stand for, saves these bytes on its own
// and gives them to Raft only to trim the log below what every replica
// has saved (see shardtxn/logorder).
func (s *Server) Snapshot() []byte { return s.snapshot() }

// Restore replaces the server's state with snapshot, bytes Snapshot
// returned, before the server has applied anything: for a service whose
// replicas keep snapshots of their own, newer than the one Raft holds.
func (s *Server) Restore(snapshot []byte) error { return s.restore(snapshot) }

// snapshot encodes the applied index, the session table (in client order,
// so that the bytes are deterministic) and the state machine's snapshot,
// in a buffer of the last snapshot's length, which the next seldom
// outgrows, rather than grown to it.
func (s *Server) snapshot() []byte {
	b := binary.AppendUvarint(make([]byte, 0, s.snapLen), uint64(s.applied))
	clients := make([]int64, 0, len(s.sessions))
	if !s.cfg.bugs.snapshotNoSessions {
		for c := range s.sessions {
			clients = append(clients, c)
		}
	}
	slices.Sort(clients)
	b = binary.AppendUvarint(b, uint64(len(clients)))
	for _, c := range clients {
		sess := s.sessions[c]
		b = binary.AppendVarint(b, c)
		b = binary.AppendVarint(b, sess.seq)
		r, err := s.codec.AppendResult(nil, sess.result)
		if err != nil {
			panic(fmt.Sprintf("rsm: encoding a result of client %d: %v", c, err)) // the service's own result: a bug
		}
		b = wire.AppendBytes(b, r)
	}
	b = wire.AppendBytes(b, s.sm.Snapshot())
	s.snapLen = len(b)
	return b
}

// restore replaces the state with a snapshot's (an empty one is the
// initial state).
func (s *Server) restore(snap []byte) error {
	if len(snap) == 0 {
		return nil
	}
	d := wire.NewDecoder(snap)
	applied := int(d.Uvarint())
	sessions := map[int64]session{}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		c, seq, r := d.Varint(), d.Varint(), d.Bytes()
		if d.Err() != nil {
			break
		}
		result, err := s.codec.DecodeResult(r)
		if err != nil {
			return fmt.Errorf("session of client %d: %w", c, err)
		}
		sessions[c] = session{seq: seq, result: result}
	}
	state := d.Bytes()
	if err := d.Done(); err != nil {
		return err
	}
	if err := s.sm.Restore(state); err != nil {
		return err
	}
	s.applied, s.sessions = applied, sessions
	return nil
}
