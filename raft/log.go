package raft

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// An Entry is one command in the log, with the term it was received in.
type Entry struct {
	Term    int
	Command any
}

// raftLog is the log after the snapshot: entries[0] stands for the last
// entry the snapshot covers (index base, its term kept), and entries[k] has
// index base+k. Each entry's persisted form is kept beside it, so saving the
// state does not encode the same command again.
type raftLog struct {
	base    int
	entries []Entry
	enc     [][]byte
}

func newLog() raftLog {
	return raftLog{entries: []Entry{{}}, enc: [][]byte{nil}}
}

// last returns the index of the last entry (base if there is none).
func (l *raftLog) last() int { return l.base + len(l.entries) - 1 }

// lastTerm returns the term of the last entry.
func (l *raftLog) lastTerm() int { return l.entries[len(l.entries)-1].Term }

// term returns the term of entry i, for base <= i <= last.
func (l *raftLog) term(i int) int { return l.entries[i-l.base].Term }

// entry returns entry i, for base < i <= last.
func (l *raftLog) entry(i int) Entry { return l.entries[i-l.base] }

// slice returns entries lo..hi-1, sharing the log's memory.
func (l *raftLog) slice(lo, hi int) []Entry { return l.entries[lo-l.base : hi-l.base] }

// append adds entries after the last one.
func (l *raftLog) append(es ...Entry) {
	for _, e := range es {
		l.entries = append(l.entries, e)
		l.enc = append(l.enc, encodeEntry(nil, e))
	}
}

// set replaces entry i (keeping what follows; only a planted bug does this).
func (l *raftLog) set(i int, e Entry) {
	l.entries[i-l.base] = e
	l.enc[i-l.base] = encodeEntry(nil, e)
}

// truncate drops entries from index i on.
func (l *raftLog) truncate(i int) {
	k := i - l.base
	clear(l.entries[k:])
	l.entries = l.entries[:k]
	l.enc = l.enc[:k]
}

// compact drops every entry up to index, which a snapshot now covers with
// the given last term. Entries after index stay if the log has them.
func (l *raftLog) compact(index, term int) {
	var keep []Entry
	var keepEnc [][]byte
	if index < l.last() && l.term(index) == term {
		keep, keepEnc = l.entries[index-l.base+1:], l.enc[index-l.base+1:]
	}
	l.entries = append([]Entry{{Term: term}}, keep...)
	l.enc = append([][]byte{nil}, keepEnc...)
	l.base = index
}

// firstOfTerm returns the first index in the log (after base) whose entry
// has the same term as entry i.
func (l *raftLog) firstOfTerm(i int) int {
	t := l.term(i)
	for i-1 > l.base && l.term(i-1) == t {
		i--
	}
	return i
}

// lastOfTerm returns the last index with term t, or -1 if the log has none.
func (l *raftLog) lastOfTerm(t int) int {
	for i := l.last(); i > l.base; i-- {
		switch tt := l.term(i); {
		case tt == t:
			return i
		case tt < t:
			return -1
		}
	}
	return -1
}

// encode appends the log's persisted form to b: base, base term, count,
// then each entry.
func (l *raftLog) encode(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(l.base))
	b = binary.AppendUvarint(b, uint64(l.entries[0].Term))
	b = binary.AppendUvarint(b, uint64(len(l.entries)-1))
	for _, e := range l.enc[1:] {
		b = append(b, e...)
	}
	return b
}

// decodeLog reads a log written by encode, returning what follows it.
func decodeLog(b []byte) (raftLog, []byte, error) {
	var base, baseTerm, n uint64
	var err error
	for _, p := range []*uint64{&base, &baseTerm, &n} {
		if *p, b, err = uvarint(b); err != nil {
			return raftLog{}, nil, err
		}
	}
	l := newLog()
	l.base = int(base)
	l.entries[0].Term = int(baseTerm)
	for range n {
		var e Entry
		if e, b, err = decodeEntry(b); err != nil {
			return raftLog{}, nil, err
		}
		l.append(e)
	}
	return l, b, nil
}

var errShort = errors.New("raft: persisted state is truncated")

func uvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errShort
	}
	return v, b[n:], nil
}

func encodeEntry(b []byte, e Entry) []byte {
	b = binary.AppendUvarint(b, uint64(e.Term))
	return encodeCommand(b, e.Command)
}

func decodeEntry(b []byte) (Entry, []byte, error) {
	t, b, err := uvarint(b)
	if err != nil {
		return Entry{}, nil, err
	}
	cmd, b, err := decodeCommand(b)
	if err != nil {
		return Entry{}, nil, fmt.Errorf("raft: entry of term %d: %w", t, err)
	}
	return Entry{Term: int(t), Command: cmd}, b, nil
}
