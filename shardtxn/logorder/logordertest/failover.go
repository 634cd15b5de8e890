package logordertest

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim"
)

// The failover scenario's timeline: paper 004's Fig. 2 runs 150 s, kills
// the log's leader for 25 s and later a follower for 20 s.
const (
	// FailoverLength is the length of the failover's timeline.
	FailoverLength = 150 * time.Second
	failoverDown   = 25 * time.Second // the longest a node stays down
	// FailoverCheck is how long after a restart progress is checked.
	FailoverCheck = 20 * time.Second
)

// A failover kills the log's leader and restarts it, then a follower,
// then the leader again, and so on until the run's length has passed,
// each down for 2–25 s (drawn from the seed) and up for at least 20 s
// before the next. It checks progress after every restart: within 20 s
// the restarted node has processed the log as far as the others had when
// it came back, and the others have processed more since (the bank's
// clients never stop). The first problem is kept.
type failover struct {
	c       *cluster.Cluster
	problem string
}

// nemesis starts the timeline and returns what stops it.
func (f *failover) nemesis(e *testbed.Env) (func(), error) {
	w, c := e.World, e.Cluster
	f.c = c
	stopped := false
	var round func(k int)
	round = func(k int) {
		if stopped {
			return
		}
		victim, ok := c.Leader(0)
		if !ok {
			w.After(100*time.Millisecond, func() { round(k) })
			return
		}
		if k%2 == 1 {
			victim = (victim + 1) % c.Replicas(0)
		}
		host := c.HostOf(0, victim)
		f.apply(fault.Fault{Kind: fault.Kill, Host: host})
		w.After(sim.Duration(w.Stream("nemesis"), 2*time.Second, failoverDown), func() {
			f.apply(fault.Fault{Kind: fault.Restart, Host: host})
			at, before := w.Now(), f.furthest()
			w.After(FailoverCheck, func() { f.check(victim, at, before) })
			w.After(sim.Duration(w.Stream("nemesis"), FailoverCheck, 2*FailoverCheck), func() { round(k + 1) })
		})
	}
	w.After(sim.Duration(w.Stream("nemesis"), 2*time.Second, failoverDown), func() { round(0) })
	return func() { stopped = true }, nil
}

func (f *failover) apply(ft fault.Fault) { must(f.c.Apply(ft)) }

// furthest returns the newest tid any live node has processed.
func (f *failover) furthest() int {
	most := 0
	for i := range f.c.Replicas(0) {
		if s, ok := f.c.Replica(0, i).(*logorder.Server); ok {
			most = max(most, s.Processed())
		}
	}
	return most
}

// check records a problem if node, restarted at at when the furthest node
// had processed tid before, has not caught up to it, or no node has gone
// further.
func (f *failover) check(node int, at time.Duration, before int) {
	s, ok := f.c.Replica(0, node).(*logorder.Server)
	switch {
	case f.problem != "" || !ok:
	case s.Processed() < before:
		f.problem = fmt.Sprintf("node %d, restarted at %v, had processed tid %d of the %d the others had then, %v later", node, at, s.Processed(), before, FailoverCheck)
	case f.furthest() <= before:
		f.problem = fmt.Sprintf("no node processed a tid past %d in the %v after node %d restarted at %v", before, FailoverCheck, node, at)
	}
}
