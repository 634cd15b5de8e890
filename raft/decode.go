package raft

import (
	"encoding/binary"
	"fmt"
)

// A Persisted is a node's persisted state, decoded: what a checker outside
// the node (a search's predicates: log matching, leader completeness) can
// see of its log. A node saves before every message it sends (see flush),
// so between events it is the node's state.
type Persisted struct {
	Term     int
	VotedFor int // -1 for none
	// Base and BaseTerm are the index and term of the last entry the
	// snapshot holds (0, 0 without one).
	Base, BaseTerm int
	// Entries are the entries after Base: Entries[0] is entry Base+1.
	Entries []Entry
}

// DecodePersisted decodes a node's persisted Raft state (as
// sim.Persister.ReadRaftState returns it); empty state is a node that has
// saved nothing yet: term 0, no vote, no entries. codec decodes commands
// as the nodes' Config.Codec does (nil for the built-in forms).
func DecodePersisted(state []byte, codec CommandCodec) (Persisted, error) {
	if len(state) == 0 {
		return Persisted{VotedFor: noVote}, nil
	}
	l, b, err := decodeLog(state, codec)
	if err != nil {
		return Persisted{}, fmt.Errorf("raft: persisted state of %d bytes: %w", len(state), err)
	}
	term, b, err := uvarint(b)
	if err != nil {
		return Persisted{}, fmt.Errorf("raft: persisted state's term: %w", err)
	}
	vote, n := binary.Varint(b)
	if n <= 0 {
		return Persisted{}, fmt.Errorf("raft: persisted state's vote: %w", errShort)
	}
	p := Persisted{Term: term, VotedFor: int(vote), Base: l.base, BaseTerm: l.entries[0].Term}
	p.Entries = make([]Entry, 0, len(l.entries)-1)
	for i := l.base + 1; i <= l.last(); i++ {
		p.Entries = append(p.Entries, l.entry(i))
	}
	return p, nil
}
