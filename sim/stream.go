package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// Streams. A world's randomness comes from named streams, each derived
// from the seed and its name alone: the network draws from Stream("net"),
// a nemesis from Stream("nemesis"), client i of a workload from
// Stream("client i"), and each host's nodes from Host.Rand (the stream
// "host NAME"). What one of them draws therefore does not move what the
// others draw: removing a fault from a nemesis's schedule, or a client
// from a run, leaves every other stream's numbers as they were (though not
// what is done with them, as the run itself then changes). World.Rand is
// the stream for everything else (a test's own choices).

// Stream returns the random stream called name, made on first use from
// the world's seed and name: every call with one name returns the same
// stream, so that its users share it rather than repeat its numbers.
func (w *World) Stream(name string) *rand.Rand {
	if r, ok := w.streams[name]; ok {
		return r
	}
	if w.streams == nil {
		w.streams = map[string]*rand.Rand{}
	}
	f := fnv.New64a()
	f.Write([]byte(name)) // never fails
	r := rand.New(rand.NewPCG(uint64(w.seed), f.Sum64()))
	w.streams[name] = r
	return r
}

// Rand returns the host's random stream (the world's stream "host NAME"),
// which the nodes on it draw from: an election timeout, a retry's pause,
// a client's ID, its timers' noise. It survives kills: a restarted host
// draws on where its last incarnation stopped.
func (h *Host) Rand() *rand.Rand {
	if h.rng == nil {
		h.rng = h.w.Stream("host " + h.name)
	}
	return h.rng
}

// RandDuration returns a duration drawn uniformly from [lo, hi] on the
// host's stream (see Rand).
func (h *Host) RandDuration(lo, hi time.Duration) time.Duration {
	return Duration(h.Rand(), lo, hi)
}

// Duration returns a duration drawn uniformly from [lo, hi] on r. It
// panics, naming both, if hi is below lo.
func Duration(r *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi < lo {
		panic(fmt.Sprintf("sim: RandDuration: hi %v is below lo %v", hi, lo))
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
}
