package testbed

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/sim"
)

// ServerHosts returns the indices by which faults name the servers'
// hosts of deployment d: the shared hosts, then each group's own.
func ServerHosts(d cluster.Config) []int {
	n := d.Hosts
	for _, g := range d.Groups {
		if g.Hosts == nil {
			n += g.Replicas
		}
	}
	return span(0, n)
}

// ClientHosts returns the indices by which faults name the first n
// client hosts a run's workload makes (KV's clerk0, clerk1, ...) on
// deployment d: the servers' hosts come first, then the clients' in the
// order they are made.
func ClientHosts(d cluster.Config, n int) []int {
	from := len(ServerHosts(d))
	return span(from, from+n)
}

// span returns from, from+1, ..., to-1.
func span(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// Clocks returns the steps, at the start of a schedule, that set each of
// hosts' clock rate to rate (1 runs true), through the monkey.
func Clocks(rate float64, hosts ...int) []chaos.Step {
	steps := make([]chaos.Step, len(hosts))
	for i, h := range hosts {
		steps[i] = chaos.Step{Fault: fault.Fault{Kind: fault.Drift, Host: h, Rate: rate}}
	}
	return steps
}

// Isolations describes a nemesis that cuts clients off from every server,
// one at a time, again and again: a client drawn from Hosts is isolated
// for a time drawn from [0, Away], then rejoins, and after a gap drawn
// from [Gap/10, Gap] the next is isolated.
type Isolations struct {
	// Hosts are the clients it isolates, by the index faults name them by
	// (see ClientHosts); none makes no isolations.
	Hosts     []int
	Away, Gap time.Duration
	// Rest, if set, keeps a client that rejoined connected for at least
	// Rest before it is isolated again (a draw that picks it then isolates
	// no one), so that isolations of one client, a short gap apart, never
	// add up to a longer one.
	Rest time.Duration
}

// Generate draws the isolations from rng that begin in [from, to): each
// is ended by a rejoin before to, or else left to a heal at to.
func (iso Isolations) Generate(rng *rand.Rand, from, to time.Duration) ([]chaos.Step, error) {
	if len(iso.Hosts) == 0 {
		return nil, nil
	}
	if iso.Away < 0 || iso.Gap < 10 {
		return nil, fmt.Errorf("isolations of up to %v, %v apart: want a non-negative time away and a gap of at least 10 ns", iso.Away, iso.Gap)
	}
	var steps []chaos.Step
	back := map[int]time.Duration{} // when each client last rejoined
	for at := from + draw(rng, iso.Gap/10, iso.Gap); at < to; at += draw(rng, iso.Gap/10, iso.Gap) {
		h := iso.Hosts[rng.IntN(len(iso.Hosts))]
		if last, ok := back[h]; ok && at < last+iso.Rest {
			continue // it has not rested yet
		}
		steps = append(steps, chaos.Step{At: at, Fault: fault.Fault{Kind: fault.Isolate, Host: h}})
		if at += draw(rng, 0, iso.Away); at >= to {
			break
		}
		steps = append(steps, chaos.Step{At: at, Fault: fault.Fault{Kind: fault.Rejoin, Host: h}})
		back[h] = at
	}
	return steps, nil
}

// draw draws a duration uniformly from [lo, hi].
func draw(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
}

// merge returns the schedule a with b's steps added, in order of time (a
// step of a before one of b at the same time).
func merge(a, b []chaos.Step) []chaos.Step {
	out := append(slices.Clip(a), b...)
	slices.SortStableFunc(out, func(x, y chaos.Step) int { return int(x.At - y.At) })
	return out
}

// LeaderKills is a reactive nemesis: it kills the host of Group's leader
// every [Gap/3, Gap], and restarts it within [0, Down], until the run's
// faults end (the last heal restarts a host still dead then).
type LeaderKills struct {
	Group     int
	Gap, Down time.Duration
}

// Start starts the nemesis on the run (Nemesis.Reactive).
func (lk LeaderKills) Start(e *Env) (func(), error) {
	if lk.Gap < 3 || lk.Down < 0 {
		return nil, fmt.Errorf("leader kills every %v, down up to %v: want a gap of at least 3 ns and a non-negative time down", lk.Gap, lk.Down)
	}
	if lk.Group < 0 || lk.Group >= e.Cluster.Groups() {
		return nil, fmt.Errorf("leader kills in group %d: the cluster has %d", lk.Group, e.Cluster.Groups())
	}
	w, c := e.World, e.Cluster
	stopped := false
	var next func()
	next = func() {
		if stopped {
			return
		}
		if l, ok := c.Leader(lk.Group); ok {
			h := c.HostOf(lk.Group, l)
			mustApply(c, fault.Fault{Kind: fault.Kill, Host: h})
			w.After(sim.Duration(w.Stream("nemesis"), 0, lk.Down), func() {
				if !stopped {
					mustApply(c, fault.Fault{Kind: fault.Restart, Host: h})
				}
			})
		}
		w.After(sim.Duration(w.Stream("nemesis"), lk.Gap/3, lk.Gap), next)
	}
	w.After(sim.Duration(w.Stream("nemesis"), lk.Gap/3, lk.Gap), next)
	return func() { stopped = true }, nil
}

// mustApply applies a fault the nemesis drew from the cluster's own
// hosts; it cannot be malformed.
func mustApply(c *cluster.Cluster, f fault.Fault) {
	if err := c.Apply(f); err != nil {
		panic(err) // a bug of the nemesis, or a fault log filled up
	}
}
