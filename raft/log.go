package raft

import (
	"hash/crc32"
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
// enc, with entry k starting at marks[k].at, so saving the state copies
// bytes instead of encoding the same commands again; marks[k].sum, the
// checksum of enc before entry k, keeps checksumming the state as cheap.
type raftLog struct {
	codec   CommandCodec
	base    int
	entries []Entry
	enc     []byte
	marks   []mark // marks[0] is unused
	sum     uint32 // checksum of enc
}

// A mark is where an entry's persisted form starts in enc, and the
// checksum of enc up to there.
type mark struct {
	at  int
	sum uint32
}

func newLog(codec CommandCodec) raftLog {
	return raftLog{codec: codec, entries: []Entry{{}}, marks: []mark{{}}}
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

// within returns the last index in lo..hi (base < lo <= hi <= last) such
// that entries lo through it take at most limit bytes persisted; lo if
// entry lo alone takes more.
func (l *raftLog) within(lo, hi, limit int) int {
	start := l.marks[lo-l.base].at
	end := func(i int) int { // where entry i's persisted form ends
		if k := i - l.base + 1; k < len(l.marks) {
			return l.marks[k].at
		}
		return len(l.enc)
	}
	if end(hi)-start <= limit {
		return hi
	}
	// The first index whose end passes the limit; the one before it fits.
	i, _ := slices.BinarySearchFunc(l.marks[lo-l.base+1:hi-l.base+1], limit, func(m mark, limit int) int {
		if m.at-start <= limit {
			return -1
		}
		return 1
	})
	return max(lo, lo+i-1)
}

// append adds entries after the last one.
func (l *raftLog) append(es ...Entry) {
	for _, e := range es {
		start := len(l.enc)
		l.enc = encodeEntry(l.enc, e, l.codec)
		l.added(e, start)
	}
}

// appendEncoded adds e after the last entry, with enc as its persisted form.
func (l *raftLog) appendEncoded(e Entry, enc []byte) {
	start := len(l.enc)
	l.enc = append(l.enc, enc...)
	l.added(e, start)
}

// added records e as the last entry, its persisted form at enc[start:].
func (l *raftLog) added(e Entry, start int) {
	l.entries = append(l.entries, e)
	l.marks = append(l.marks, mark{start, l.sum})
	l.sum = crc32.Update(l.sum, castagnoli, l.enc[start:])
}

// set replaces entry i and drops what follows it from the persisted form
// before adding it back: only a planted bug uses it.
func (l *raftLog) set(i int, e Entry) {
	rest := slices.Clone(l.entries[i-l.base+1:])
	l.truncate(i)
	l.append(e)
	l.append(rest...)
}

// truncate drops entries from index i on, for base < i <= last.
func (l *raftLog) truncate(i int) {
	k := i - l.base
	clear(l.entries[k:])
	l.entries = l.entries[:k]
	l.enc, l.sum = l.enc[:l.marks[k].at], l.marks[k].sum
	l.marks = l.marks[:k]
}

// compact drops every entry up to index, which a snapshot now covers with
// the given last term. Entries after index stay if the log has them.
func (l *raftLog) compact(index, term int) {
	k := index - l.base + 1
	keep := index < l.last() && l.term(index) == term
	entries, enc, marks := l.entries, l.enc, l.marks
	// Fresh buffers, as large as the old: the persister may still hold
	// the old encoding, and a log that grows to a size once will again,
	// so it should not pay to grow step by step each time.
	l.base, l.entries, l.enc, l.marks, l.sum = index, make([]Entry, 1, cap(entries)), make([]byte, 0, cap(enc)), make([]mark, 1, cap(marks)), 0
	l.entries[0].Term = term
	if !keep {
		return
	}
	for ; k < len(entries); k++ {
		end := len(enc)
		if k+1 < len(marks) {
			end = marks[k+1].at
		}
		l.appendEncoded(entries[k], enc[marks[k].at:end])
	}
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

// lastOfTerm returns the last index after base with term t, or -1 if the
// log has none.
func (l *raftLog) lastOfTerm(t int) int {
	for i := l.last(); i > l.base && l.term(i) >= t; i-- {
		if l.term(i) == t {
			return i
		}
	}
	return -1
}
