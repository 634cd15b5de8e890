package sweep

import (
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

// The pace of the minority traps.
const (
	trapRun     = 3 // leaders trapped in a row, at most, before the network heals
	trapHealMin = time.Second
	trapHealMax = 3 * time.Second // the network heals 1–3 s after the last trap
	trapRearm   = time.Second     // the most it then stays whole before the traps are set again
)

// figure8Nemesis sets minority traps and crashes followers as they first
// accept a new leader's entries.
func figure8Nemesis(w *sim.World, c *cluster.Cluster) (func(), error) {
	t := newTap(c, "tap: the nemesis watches the replicas' messages", nil)
	stopTraps := minorityTraps(w, c, t)
	stopCrashes := crashOnNewLeader(w, c, t)
	return func() { stopTraps(); stopCrashes() }, nil
}

// minorityTraps cuts each new leader off, the moment it first sends
// entries in its term, with one follower it could reach: its entries
// reach a minority, and the rest elect a leader of their own, which the
// next trap cuts off in turn. Up to trapRun leaders are trapped in a row,
// each trap undoing the last, so that a deposed leader's entries of an
// old term meet a later leader's; the network heals 1–3 s after the last
// trap, and the traps are set again within a second. It returns what
// stops it.
func minorityTraps(w *sim.World, c *cluster.Cluster, t *tap) func() {
	n := c.Replicas(0)
	stopped, armed := false, false
	seen, trapped := 0, 0 // the last term whose first entries were seen; the traps in this run
	gen := 0              // counts traps: a heal meant for an earlier one does nothing
	arm := func() { armed, seen, trapped = !stopped, 0, 0 }
	w.After(w.RandDuration(0, trapRearm), arm)
	t.watch = append(t.watch, func(m labrpc.Message, leader, _ int) {
		args, ok := m.Args.(*raft.AppendEntriesArgs)
		if stopped || !armed || !ok || m.IsReply || len(args.Entries) == 0 || args.Term <= seen {
			return
		}
		seen = args.Term
		var reach []int
		for i := range n {
			if i != leader && c.Monkey().Connected(c.HostOf(0, leader), c.HostOf(0, i)) {
				reach = append(reach, i)
			}
		}
		if len(reach) == 0 {
			return
		}
		partner := reach[w.Rand().IntN(len(reach))]
		near := []int{c.HostOf(0, leader), c.HostOf(0, partner)}
		var far []int
		for i := range n {
			if i != leader && i != partner {
				far = append(far, c.HostOf(0, i))
			}
		}
		trapped++
		armed = trapped < trapRun
		gen++
		g := gen
		// After this event, so that the entries just sent are in flight:
		// the cut drops those to the far side on arrival.
		w.After(0, func() {
			must(c.Apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{near, far}}))
			w.After(w.RandDuration(trapHealMin, trapHealMax), func() {
				if g != gen || stopped {
					return
				}
				armed = false
				must(c.Apply(fault.Fault{Kind: fault.Heal}))
				w.After(w.RandDuration(0, trapRearm), arm)
			})
		})
	})
	return func() { stopped = true }
}

// crashOnNewLeader crashes a follower right after it answers the first
// AppendEntries that brings it entries of a term, and restarts it at
// once: what it persisted before answering must be whole, and enough to
// go on from. It returns what stops it.
func crashOnNewLeader(w *sim.World, c *cluster.Cluster, t *tap) func() {
	stopped := false
	seen := map[int]int{} // the last term whose entries each follower answered
	t.watch = append(t.watch, func(m labrpc.Message, follower, _ int) {
		args, ok := m.Args.(*raft.AppendEntriesArgs)
		if stopped || !ok || !m.IsReply || len(args.Entries) == 0 || args.Term <= seen[follower] {
			return
		}
		seen[follower] = args.Term
		h := c.HostOf(0, follower)
		w.After(0, func() {
			must(c.Apply(fault.Fault{Kind: fault.Kill, Host: h}))
			must(c.Apply(fault.Fault{Kind: fault.Restart, Host: h}))
		})
	})
	return func() { stopped = true }
}
