package rsm

import (
	"fmt"
	"time"
)

// SetBackoff makes each call pause longer every time it could not get
// through: after its n-th round of servers that could not help (under
// Discover, its n-th time the directory named no other server), it pauses
// a random time in [p/2, p], drawn from the world's random numbers, where
// p is first·2ⁿ⁻¹ up to max; without it, every pause is 10 ms. So a call
// to a group that receives but cannot answer (a one-way cut) costs a few
// tries a second, not a hundred, while a call that meets an election
// still finds the new leader within a few pauses. It panics if first is
// not positive or max is below first.
func (r *Router) SetBackoff(first, max time.Duration) {
	if first <= 0 || max < first {
		panic(fmt.Sprintf("rsm: backoff from %v up to %v: want 0 < first <= max", first, max))
	}
	r.backoff, r.maxBackoff = first, max
}

// pauseFor returns how long a call pauses the n-th time (from 1).
func (r *Router) pauseFor(n int) time.Duration {
	if r.backoff == 0 {
		return roundPause
	}
	p := r.backoff
	for range min(n-1, 62) { // 62 doublings reach any bound from 1 ns
		p += min(p, r.maxBackoff-p) // doubles p up to the bound, never past it (nor overflows)
	}
	return r.host.RandDuration(p/2, p)
}
