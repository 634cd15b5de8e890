package raft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// The persisted Raft state is one blob, saved together with the snapshot:
//
//	entries        each entry's term (uvarint) and command (see command.go)
//	log metadata   base, base term and entry count (uvarints)
//	node state     term (uvarint), vote (varint), snapshot checksum (4 bytes)
//	length         of the log metadata and node state (4 bytes)
//	checksum       of everything before it (4 bytes)
//
// Fixed-size fields are little-endian; checksums are CRC-32C. The entries
// come first so that saving after an append costs the new entries, not the
// whole log (see raftLog.persisted). The checksums make a truncated or
// damaged state, or a snapshot that is not the one saved with it, fail to
// load with an error that says so, instead of decoding into a node that
// runs on garbage.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// footer is the size of the length and the checksum.
const footer = 8

var errShort = errors.New("truncated")

// persisted returns the persisted form of the log followed by state, the
// node state. It shares the entries' memory (see sim.Persister.SaveNoCopy).
func (l *raftLog) persisted(state []byte) []byte {
	b := l.enc
	meta := len(b)
	b = binary.AppendUvarint(b, uint64(l.base))
	b = binary.AppendUvarint(b, uint64(l.entries[0].Term))
	b = binary.AppendUvarint(b, uint64(len(l.entries)-1))
	b = append(b, state...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(b)-meta))
	return binary.LittleEndian.AppendUint32(b, crc32.Update(l.sum, castagnoli, b[meta:]))
}

// decodeLog reads a log written by persisted, and returns the node state
// after it.
func decodeLog(b []byte, codec CommandCodec) (raftLog, []byte, error) {
	if len(b) < footer {
		return raftLog{}, nil, fmt.Errorf("%d bytes, too short for a Raft state", len(b))
	}
	body := b[:len(b)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return raftLog{}, nil, fmt.Errorf("checksum %08x, not the %08x saved with it: the state is damaged or truncated", got, want)
	}
	n := binary.LittleEndian.Uint32(body[len(body)-4:])
	body = body[:len(body)-4]
	if uint64(n) > uint64(len(body)) {
		return raftLog{}, nil, fmt.Errorf("metadata of %d bytes does not fit in the %d bytes before it", n, len(body))
	}
	entries, meta := body[:len(body)-int(n)], body[len(body)-int(n):]
	var base, baseTerm, count int
	for _, f := range []struct {
		name string
		v    *int
	}{{"base", &base}, {"base term", &baseTerm}, {"entry count", &count}} {
		var err error
		if *f.v, meta, err = uvarint(meta); err != nil {
			return raftLog{}, nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	l := newLog(codec)
	l.base = base
	l.entries[0].Term = baseTerm
	for i := 1; i <= count; i++ {
		e, rest, err := decodeEntry(entries, codec)
		if err != nil {
			return raftLog{}, nil, fmt.Errorf("entry %d: %w", base+i, err)
		}
		if t := l.lastTerm(); e.Term < t {
			return raftLog{}, nil, fmt.Errorf("entry %d: term %d is below the term %d before it", base+i, e.Term, t)
		}
		l.appendEncoded(e, entries[:len(entries)-len(rest)])
		entries = rest
	}
	if len(entries) != 0 {
		return raftLog{}, nil, fmt.Errorf("%d bytes after the last entry", len(entries))
	}
	return l, meta, nil
}

// encodeState appends the node state to b.
func (rf *Raft) encodeState(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(rf.term))
	vote := rf.votedFor
	if rf.cfg.bugs.forgetVote {
		vote = noVote
	}
	b = binary.AppendVarint(b, int64(vote))
	rf.trailer = binary.LittleEndian.AppendUint32(b, rf.snapSum)
	return rf.trailer
}

// restore loads the persisted state and snapshot, checking that they are
// whole and belong together.
func (rf *Raft) restore(state, snapshot []byte) error {
	if len(state) == 0 {
		if len(snapshot) != 0 {
			return fmt.Errorf("a snapshot of %d bytes without a Raft state", len(snapshot))
		}
		return nil
	}
	log, b, err := decodeLog(state, rf.cfg.Codec)
	if err != nil {
		return err
	}
	term, b, err := uvarint(b)
	if err != nil {
		return fmt.Errorf("term: %w", err)
	}
	vote, n := binary.Varint(b)
	if n <= 0 {
		return fmt.Errorf("vote: %w", errShort)
	}
	b = b[n:]
	if len(b) != 4 {
		return fmt.Errorf("%d bytes after the vote, not a 4-byte snapshot checksum", len(b))
	}
	if vote < noVote || vote >= int64(len(rf.peers)) {
		return fmt.Errorf("vote %d is not a peer index in -1..%d", vote, len(rf.peers)-1)
	}
	if term < log.lastTerm() {
		return fmt.Errorf("term %d is below the log's last term %d", term, log.lastTerm())
	}
	sum := binary.LittleEndian.Uint32(b)
	if got := crc32.Checksum(snapshot, castagnoli); got != sum {
		return fmt.Errorf("snapshot of %d bytes has checksum %08x, not the %08x saved with the state: it is damaged, truncated or from another state", len(snapshot), got, sum)
	}
	rf.term, rf.votedFor, rf.log = term, int(vote), log
	rf.snapshot, rf.snapSum = snapshot, sum
	return nil
}

// setSnapshot replaces the snapshot, to be saved with the state.
func (rf *Raft) setSnapshot(snapshot []byte) {
	rf.snapshot, rf.snapSum = snapshot, crc32.Checksum(snapshot, castagnoli)
	rf.dirty = true
}

// uvarint reads an unsigned varint that must fit in an int.
func uvarint(b []byte) (int, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errShort
	}
	if v > math.MaxInt {
		return 0, nil, fmt.Errorf("%d is out of range", v)
	}
	return int(v), b[n:], nil
}

func encodeEntry(b []byte, e Entry, codec CommandCodec) []byte {
	b = binary.AppendUvarint(b, uint64(e.Term))
	return encodeCommand(b, e.Command, codec)
}

func decodeEntry(b []byte, codec CommandCodec) (Entry, []byte, error) {
	t, b, err := uvarint(b)
	if err != nil {
		return Entry{}, nil, fmt.Errorf("term: %w", err)
	}
	cmd, b, err := decodeCommand(b, codec)
	if err != nil {
		return Entry{}, nil, fmt.Errorf("command of term %d: %w", t, err)
	}
	return Entry{Term: t, Command: cmd}, b, nil
}
