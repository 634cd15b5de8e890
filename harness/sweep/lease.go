package sweep

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/raftchaos"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// leaseElections is the hunt aimed at leader leases: lease reads, election
// messages held back by up to a lease's length, and a nemesis that cuts the
// leader off and lets it back in piece by piece around an election
// timeout, so that followers time out, hear the leader again, and cast
// votes in the windows where a lease's promise is weakest.
func leaseElections() Scenario { return leaseSpec().scenario() }

// leaseSpec is the shape of kv-lease-elections.
func leaseSpec() kvSpec {
	return kvSpec{
		name:         "kv-lease-elections",
		description:  "Three key/value servers with lease reads serve ten clients while the leader is cut off again and again for about an election timeout and let back in through a bridge, and pre-vote replies are held back up to a lease's length, so that a new leader may be elected while the old one's lease still seems to hold; porcupine then checks that the history is linearizable.",
		opts:         kvraft.Options{Reads: rsm.ReadLease, Raft: raft.LabConfig()},
		servers:      3, // the bridge is the follower whose pre-election is open in one flicker of two
		clients:      10,
		keys:         10, // at 5, one seed in 800 made porcupine run out of time (two clients per key, and a cut-off leader's operations pending for a second)
		clerkTimeout: 50 * time.Millisecond,
		nemesis:      leaseNemesis,
	}
}

// leaseNemesis holds every pre-vote reply back by up to ElectionMin
// (longer than a heartbeat, about as long as a lease), so that it may
// arrive after its candidate has heard from the leader again, and runs
// flickers (see flicker) one after another until stopped.
func leaseNemesis(w *sim.World, c *cluster.Cluster) (func(), error) {
	rc := raft.LabConfig()
	if err := c.Monkey().SetDelayRule("election traffic held back", raftchaos.Holds(w, raftchaos.RaftMessages{}, 0, rc.ElectionMin)); err != nil {
		return nil, err
	}
	stopped := false
	var next func()
	next = func() {
		if !stopped {
			flicker(w, c, rc, func() { w.After(sim.Duration(w.Stream("nemesis"), 0, time.Second), next) })
		}
	}
	w.After(time.Second, next)
	return func() { stopped = true }, nil
}

// flicker cuts the current leader off from every server for about an
// election timeout (followers time out and ask for votes), then lets it
// back in through a bridge: a follower that hears both the leader's side (a
// bare majority with it) and the rest, for about a heartbeat (the bridge
// answers the leader, renewing its lease, and still hears the rest); then
// the bridge joins the rest, and after a while everything heals and flicker
// calls done. Every choice is drawn from the world's random numbers, and
// every fault goes through the monkey.
func flicker(w *sim.World, c *cluster.Cluster, rc raft.Config, done func()) {
	leader, ok := c.Leader(0)
	if !ok {
		done()
		return
	}
	var others []int
	n := c.Replicas(0)
	for _, i := range w.Stream("nemesis").Perm(n) {
		if i != leader {
			others = append(others, i)
		}
	}
	k := n / 2 // the followers that make a bare majority with the leader
	near, bridge, far := append([]int{leader}, others[:k-1]...), others[k-1], others[k:]
	apply := func(f fault.Fault) {
		if err := c.Apply(f); err != nil {
			panic(err) // the groups come from the cluster itself: a bug
		}
	}
	cutOff := sim.Duration(w.Stream("nemesis"), rc.ElectionMin, rc.ElectionMin+rc.Heartbeat)
	rejoin := sim.Duration(w.Stream("nemesis"), rc.Heartbeat/2, 2*rc.Heartbeat)
	settle := sim.Duration(w.Stream("nemesis"), rc.ElectionMax, 2*rc.ElectionMax)
	apply(fault.Fault{Kind: fault.Isolate, Host: leader})
	w.After(cutOff, func() {
		apply(fault.Fault{Kind: fault.Bridge, Host: bridge, Groups: [][]int{near, far}})
		w.After(rejoin, func() {
			apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{near, append([]int{bridge}, far...)}})
			w.After(settle, func() {
				apply(fault.Fault{Kind: fault.Heal})
				done()
			})
		})
	})
}

// leaseDriftSpec is the hunt aimed at the margin leases leave for clock
// drift: the leader's clock slow and the others' fast, as far as the
// drift bound allows, then the leader cut off. A follower may then vote
// as soon as ElectionMin has passed on its fast clock, while the cut-off
// leader, on its slow one, still serves reads from its lease; with the
// margin, the lease ends first. Readers that only read stay with the
// deposed leader (a client that writes leaves it when its write times
// out), and a LAN makes the new leader's first writes quick, inside the
// tens of milliseconds that a missing margin leaves.
func leaseDriftSpec() kvSpec {
	rc := raft.LabConfig()
	return kvSpec{
		name:         "kv-lease-drift",
		description:  fmt.Sprintf("Three key/value servers with lease reads serve, on a LAN, five clients that read and write and five that only read, for 15 s in which again and again the leader's clock is set %.0f%% slow and the others' %.0f%% fast (the most drift the leases allow for) and the leader is cut off for one to two election timeouts; porcupine then checks that the history is linearizable.", 100*rc.LeaseDrift, 100*rc.LeaseDrift),
		opts:         kvraft.Options{Reads: rsm.ReadLease, Raft: rc},
		servers:      3,
		clients:      5,
		readers:      5,
		keys:         10,
		clerkTimeout: 50 * time.Millisecond,
		reliable:     true,
		think:        20 * time.Millisecond, // on a LAN, ten clients at 10 ms do 40 000 operations in 30 s
		chaosFor:     15 * time.Second,
		nemesis:      skewedCutoffs(rc),
	}
}

// skewedCutoffs, again and again, sets the leader's clock rate to
// 1−LeaseDrift and every other server's to 1+LeaseDrift, waits one or two
// heartbeats (so that every timer is set on the skewed clocks), cuts the
// leader off for one to two ElectionMax, heals, and pauses up to a second.
func skewedCutoffs(rc raft.Config) func(w *sim.World, c *cluster.Cluster) (func(), error) {
	return func(w *sim.World, c *cluster.Cluster) (func(), error) {
		return raftchaos.LeaderRounds(w, c, rc.Heartbeat, time.Second, func(leader int, next func()) {
			for i := range c.Replicas(0) {
				rate := 1 + rc.LeaseDrift
				if i == leader {
					rate = 1 - rc.LeaseDrift
				}
				must(c.Apply(fault.Fault{Kind: fault.Drift, Host: c.HostOf(0, i), Rate: rate}))
			}
			w.After(sim.Duration(w.Stream("nemesis"), rc.Heartbeat, 2*rc.Heartbeat), func() {
				must(c.Apply(fault.Fault{Kind: fault.Isolate, Host: c.HostOf(0, leader)}))
				w.After(sim.Duration(w.Stream("nemesis"), rc.ElectionMax, 2*rc.ElectionMax), func() {
					must(c.Apply(fault.Fault{Kind: fault.Heal}))
					next()
				})
			})
		}), nil
	}
}
