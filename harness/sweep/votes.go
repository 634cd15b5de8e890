package sweep

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

// The pace of the vote nemesis.
const (
	voteHold      = 50 * time.Millisecond // the most a vote request or reply is held back
	voterDowntime = 10 * time.Millisecond // the most a server that just voted stays down
	bridgeMin     = 750 * time.Millisecond
	bridgeMax     = 1500 * time.Millisecond // how long the servers stay bridged
)

// votesNemesis holds election messages back, crashes every server right
// after it answers a vote request, and runs bridge rounds, so that two
// candidates campaign in one term and a server that voted for one is
// asked by the other after a crash.
func votesNemesis(rc raft.Config) func(w *sim.World, c *cluster.Cluster) (func(), error) {
	return func(w *sim.World, c *cluster.Cluster) (func(), error) {
		preVotes := electionDelays(w, rc)
		t := newTap(c, fmt.Sprintf("tap: votes held back up to %v, pre-vote replies up to %v", voteHold, rc.ElectionMin), func(m labrpc.Message) time.Duration {
			if args, ok := m.Args.(*raft.RequestVoteArgs); ok && !args.PreVote {
				return w.RandDuration(0, voteHold)
			}
			return preVotes(m)
		})
		stopCrashes := crashVoters(w, c, t)
		stopBridges := bridgeRounds(w, c, rc)
		return func() { stopCrashes(); stopBridges() }, nil
	}
}

// crashVoters crashes a server right after it answers a vote request (a
// vote, granted or not, not a pre-vote), and restarts it within
// voterDowntime. It returns what stops it.
func crashVoters(w *sim.World, c *cluster.Cluster, t *tap) func() {
	stopped := false
	down := map[int]bool{} // the servers this crashed that are not back yet
	t.watch = append(t.watch, func(m labrpc.Message, voter, _ int) {
		args, ok := m.Args.(*raft.RequestVoteArgs)
		if stopped || !ok || args.PreVote || !m.IsReply || down[voter] {
			return
		}
		down[voter] = true
		h := c.HostOf(0, voter)
		w.After(0, func() {
			must(c.Apply(fault.Fault{Kind: fault.Kill, Host: h}))
			w.After(w.RandDuration(0, voterDowntime), func() {
				must(c.Apply(fault.Fault{Kind: fault.Restart, Host: h}))
				down[voter] = false
			})
		})
	})
	return func() { stopped = true }
}

// bridgeRounds, again and again, crashes the leader and restarts it at
// once, and splits the servers into two sides that hear each other only
// through one server, the bridge, for bridgeMin–bridgeMax: each side may
// elect a leader with the bridge's vote. It returns what stops it.
func bridgeRounds(w *sim.World, c *cluster.Cluster, rc raft.Config) func() {
	n := c.Replicas(0)
	return leaderRounds(w, c, rc, w.RandDuration(0, time.Second), func(leader int, next func()) {
		h := c.HostOf(0, leader)
		must(c.Apply(fault.Fault{Kind: fault.Kill, Host: h}))
		must(c.Apply(fault.Fault{Kind: fault.Restart, Host: h}))
		hosts := make([]int, n)
		for k, i := range w.Rand().Perm(n) {
			hosts[k] = c.HostOf(0, i)
		}
		half := 1 + (n-1)/2
		must(c.Apply(fault.Fault{Kind: fault.Bridge, Host: hosts[0], Groups: [][]int{hosts[1:half], hosts[half:]}}))
		w.After(w.RandDuration(bridgeMin, bridgeMax), func() {
			must(c.Apply(fault.Fault{Kind: fault.Heal}))
			next()
		})
	})
}

// leaderRounds runs round on the leader of c's first group, again and
// again until stopped: first after first, then up to a second after round
// calls next; while the group has no leader, it waits a heartbeat. It
// returns what stops it.
func leaderRounds(w *sim.World, c *cluster.Cluster, rc raft.Config, first time.Duration, round func(leader int, next func())) func() {
	stopped := false
	var start func()
	start = func() {
		if stopped {
			return
		}
		leader, ok := c.Leader(0)
		if !ok {
			w.After(rc.Heartbeat, start)
			return
		}
		round(leader, func() { w.After(w.RandDuration(0, time.Second), start) })
	}
	w.After(first, start)
	return func() { stopped = true }
}
