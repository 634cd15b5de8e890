package raft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// An Entry is one command in the log, with the term it was received in.
type Entry struct {
	Term    int
	Command any
}

// raftLog is the log after the snapshot: entries[0] stands for the last
// entry the snapshot covers (index base, its term kept), and entries[k] has
// index base+k. The persisted form of entries[1:] is kept, back to back, in
// enc, with entry k starting at off[k], so saving the state copies bytes
// instead of encoding the same commands again.
type raftLog struct {
	codec   CommandCodec
	base    int
	entries []Entry
	enc     []byte
	off     []int // off[k] is where entry k starts in enc; off[0] is unused
}

func newLog(codec CommandCodec) raftLog {
	return raftLog{codec: codec, entries: []Entry{{}}, off: []int{0}}
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
		l.off = append(l.off, len(l.enc))
		l.enc = encodeEntry(l.enc, e, l.codec)
	}
}

// set replaces entry i and drops what follows it from the persisted form
// before adding it back: only a planted bug uses it.
func (l *raftLog) set(i int, e Entry) {
	rest := slices.Clone(l.entries[i-l.base+1:])
	l.truncate(i)
	l.append(e)
	l.append(rest...)
}

// truncate drops entries from index i on.
func (l *raftLog) truncate(i int) {
	k := i - l.base
	clear(l.entries[k:])
	l.entries = l.entries[:k]
	if k < len(l.off) {
		l.enc = l.enc[:l.off[k]]
		l.off = l.off[:k]
	}
}

// compact drops every entry up to index, which a snapshot now covers with
// the given last term. Entries after index stay if the log has them.
func (l *raftLog) compact(index, term int) {
	if index < l.last() && l.term(index) == term {
		k := index - l.base + 1
		cut := l.off[k]
		l.entries = append([]Entry{{Term: term}}, l.entries[k:]...)
		off := []int{0}
		for _, o := range l.off[k:] {
			off = append(off, o-cut)
		}
		l.off = off
		l.enc = append([]byte(nil), l.enc[cut:]...)
	} else {
		l.entries = []Entry{{Term: term}}
		l.off = []int{0}
		l.enc = nil
	}
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

// persisted returns the persisted form of the log followed by trailer:
// the entries back to back, then base, base term, entry count and the
// trailer, then the length of all that after the entries as 4 bytes. It
// shares the entries' memory (see sim.Persister.SaveNoCopy), so that
// saving after an append costs the new entries, not the whole log.
func (l *raftLog) persisted(trailer []byte) []byte {
	b := l.enc
	mark := len(b)
	b = binary.AppendUvarint(b, uint64(l.base))
	b = binary.AppendUvarint(b, uint64(l.entries[0].Term))
	b = binary.AppendUvarint(b, uint64(len(l.entries)-1))
	b = append(b, trailer...)
	return binary.LittleEndian.AppendUint32(b, uint32(len(b)-mark))
}

// decodeLog reads a log written by persisted, and returns the trailer.
func decodeLog(b []byte, codec CommandCodec) (raftLog, []byte, error) {
	if len(b) < 4 {
		return raftLog{}, nil, errShort
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-4:]))
	if n > len(b)-4 {
		return raftLog{}, nil, errShort
	}
	entries, tail := b[:len(b)-4-n], b[len(b)-4-n:len(b)-4]
	var base, baseTerm, count uint64
	var err error
	for _, p := range []*uint64{&base, &baseTerm, &count} {
		if *p, tail, err = uvarint(tail); err != nil {
			return raftLog{}, nil, err
		}
	}
	l := newLog(codec)
	l.base = int(base)
	l.entries[0].Term = int(baseTerm)
	for range count {
		var e Entry
		if e, entries, err = decodeEntry(entries, codec); err != nil {
			return raftLog{}, nil, err
		}
		l.append(e)
	}
	return l, tail, nil
}

var errShort = errors.New("truncated")

func uvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errShort
	}
	return v, b[n:], nil
}

func encodeEntry(b []byte, e Entry, codec CommandCodec) []byte {
	b = binary.AppendUvarint(b, uint64(e.Term))
	return encodeCommand(b, e.Command, codec)
}

func decodeEntry(b []byte, codec CommandCodec) (Entry, []byte, error) {
	t, b, err := uvarint(b)
	if err != nil {
		return Entry{}, nil, err
	}
	cmd, b, err := decodeCommand(b, codec)
	if err != nil {
		return Entry{}, nil, fmt.Errorf("entry of term %d: %w", t, err)
	}
	return Entry{Term: int(t), Command: cmd}, b, nil
}
