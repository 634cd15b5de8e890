package sim

import (
	"fmt"
	"io"
	"time"
)

const (
	hashInit  = 0xcbf29ce484222325 // FNV-1a offset basis
	hashPrime = 0x100000001b3      // FNV-1a prime
)

// Tags begin what each layer folds into the trace hash, so that records of
// different kinds never hash alike. They live here, in one list, so that
// no two layers pick the same number.
const (
	TagKill    = 1 // a host died (sim)
	TagRestart = 2 // a host came back (sim)
	TagDrift   = 3 // a host's clock rate changed (sim)

	TagCall    = 100 // a call was sent (labrpc)
	TagDeliver = 101 // a request reached its server
	TagReply   = 102 // a handler answered
	TagLost    = 103 // a request or reply was lost
	TagDone    = 104 // a call completed, well or not
	TagMode    = 105 // the network's fault model changed
	TagEnable  = 106 // an end was enabled or disabled
	TagLink    = 107 // a one-way link went up or down

	TagFault = 200 // the monkey applied a fault (chaos)
)

// Fold mixes words into the world's trace hash. The world folds in every
// event it fires (time, sequence, owner); layers above fold in what makes an
// event matter (a message's route and size, a fault, a client operation), so
// that two runs end with the same hash only if they did the same things.
func (w *World) Fold(words ...uint64) {
	h := w.hash
	for _, x := range words {
		h = (h ^ x) * hashPrime
		h ^= h >> 29
	}
	w.hash = h
}

// FoldString mixes s into the trace hash, as Fold(StringWord(s)).
func (w *World) FoldString(s string) { w.Fold(StringWord(s)) }

// StringWord returns a 64-bit digest of s (FNV-1a) to fold in its place. A
// layer that folds the same few strings over and over (method names, say)
// can compute their words once.
func StringWord(s string) uint64 {
	h := uint64(hashInit)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * hashPrime
	}
	return h
}

// TraceHash returns the running hash of everything the world has done.
func (w *World) TraceHash() uint64 { return w.hash }

// Events returns how many events the world has fired.
func (w *World) Events() uint64 { return w.events }

// SetTraceWriter makes the world write a line per traced happening to out
// (nil turns tracing off). Layers write through Tracef.
func (w *World) SetTraceWriter(out io.Writer) { w.trace = out }

// Tracing reports whether a trace writer is set, so that callers can skip
// building expensive trace lines.
func (w *World) Tracing() bool { return w.trace != nil }

// Tracef writes one line to the trace writer, prefixed with the virtual time.
// It does nothing when tracing is off.
func (w *World) Tracef(format string, args ...any) {
	if w.trace == nil {
		return
	}
	fmt.Fprintf(w.trace, "%14s  %s\n", w.now, fmt.Sprintf(format, args...))
}

// A Summary is the identity of a run so far: its seed, virtual time, event
// count and trace hash. Two runs of one seed and config must have equal
// summaries.
type Summary struct {
	Seed   int64
	Now    time.Duration
	Events uint64
	Hash   uint64
}

// Summary returns the world's summary.
func (w *World) Summary() Summary {
	return Summary{Seed: w.seed, Now: w.now, Events: w.events, Hash: w.hash}
}

// String formats the summary on one line.
func (s Summary) String() string {
	return fmt.Sprintf("seed=%d virtual=%v events=%d trace=%016x", s.Seed, s.Now, s.Events, s.Hash)
}
