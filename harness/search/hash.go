package search

import "github.com/replab/replab/sim"

// State hashing. A state's hash is made of:
//   - the system's digest of its nodes' state (System.State);
//   - the multiset of messages in flight, each as its sender, receiver,
//     method and a digest of its content (labrpc prints the copy it
//     carries), combined so that their order does not count;
//   - the order in which the other events (timers, the clients' and the
//     harness's functions) are due, each as its host and whether it is a
//     timer, but not when: two states that differ only in how far off
//     their timers are hash alike, as DSLabs' do, which ignore time;
//   - the fault, drop and duplicate budgets used so far.
// Two states that hash alike are explored once. Whatever the digests leave
// out is merged; see the package doc for what that misses.

// stateHash returns the hash of r's state.
func (r *run) stateHash() uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	if r.sys.State != nil {
		h = mix(h, r.sys.State())
	}
	r.buf = r.sys.World.Queued(r.buf)
	var msgs uint64
	for _, c := range r.buf {
		if !c.Message {
			b := uint64(0)
			if c.Timer {
				b = 1
			}
			h = mix(mix(h, uint64(c.Host+1)), b)
			continue
		}
		m := mix(mix(mix(0, uint64(c.Info.From+1)), uint64(c.Info.To+1)), sim.StringWord(c.Info.What))
		if c.Info.Digest != nil {
			m = mix(m, c.Info.Digest())
		}
		msgs += splitmix(m)
	}
	return mix(mix(mix(mix(h, msgs), uint64(r.faults)), uint64(r.drops)), uint64(r.dups))
}

// cover returns the digest a guided search counts coverage by: the
// system's digest of its nodes' state and the fault, drop and duplicate
// budgets used, not the messages in flight nor the timers.
func (r *run) cover() uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	switch {
	case r.sys.Cover != nil:
		h = mix(h, r.sys.Cover())
	case r.sys.State != nil:
		h = mix(h, r.sys.State())
	}
	return mix(mix(mix(h, uint64(r.faults)), uint64(r.drops)), uint64(r.dups))
}

// mix folds x into h.
func mix(h, x uint64) uint64 {
	h = (h ^ x) * 0x100000001b3
	return h ^ h>>29
}

// splitmix scrambles x (SplitMix64's finalizer), so that sums of
// scrambled values make a multiset hash.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
