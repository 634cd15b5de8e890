package raftchaos

import (
	"fmt"
	"strings"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

// Messages tells a nemesis what a message between a group's nodes is:
// this package knows the lab's Raft API, not the types of a Raft's
// messages.
type Messages interface {
	// Entries returns the term of an AppendEntries request that carries
	// entries (of the request a reply answers, for a reply), or false.
	Entries(m labrpc.Message) (term int, ok bool)
	// Vote reports whether m is a vote request or its reply, and whether
	// the vote is a pre-vote.
	Vote(m labrpc.Message) (vote, preVote bool)
}

// The pace of the strikes.
const (
	trapRun     = 3 // leaders trapped in a row, at most, before the network heals
	trapHealMin = time.Second
	trapHealMax = 3 * time.Second // the network heals 1–3 s after the last trap
	trapRearm   = time.Second     // the most it then stays whole before the traps are set again
	bridgeMin   = 750 * time.Millisecond
	bridgeMax   = 1500 * time.Millisecond // how long the servers stay bridged
	roundGap    = time.Second             // the most a bridge round waits after the last
)

// A Nemesis strikes a Raft group (the run's group 0) at moments it sees
// through a tap on the group's messages, each kind of strike as its field
// says (a zero field: never). It holds its strikes while the run is calm
// (testbed.Env.Calm), so that progress after a heal is asked of a whole
// cluster. Start is a testbed reactive nemesis; every fault goes through
// the cluster's monkey, so the fault log shows it, and names the tap with
// the delays it adds.
type Nemesis struct {
	// Messages tells the nemesis what each message is.
	Messages Messages
	// Heartbeat is how long a bridge round waits, while the group has no
	// leader, before it looks again.
	Heartbeat time.Duration
	// Traps is the chance that the traps are set, each time they may be:
	// set, they cut each new leader off, the moment it first sends
	// entries in its term, with as many followers it could reach as leave
	// the rest a bare majority (one of five): its entries reach a
	// minority, and the rest elect a leader of their own, which the next
	// trap cuts off in turn. Up to three leaders are trapped in a row,
	// each trap undoing the last, so that a deposed leader's entries of an
	// old term meet a later leader's (Raft's Figure 8); the network heals
	// 1–3 s after the last trap, and the traps may be set again within a
	// second (the chance is drawn then).
	Traps float64
	// CrashOnEntries is the chance that a follower crashes and restarts
	// at once right after it answers the first AppendEntries that brings
	// it entries of a term: what it persisted before answering must be
	// whole, and enough to go on from.
	CrashOnEntries float64
	// CrashVoters is the chance that a node crashes right after it
	// answers a vote request (a vote, granted or not, not a pre-vote); it
	// is back within VoterDowntime.
	CrashVoters   float64
	VoterDowntime time.Duration
	// HoldVotes is the most a vote request or reply is held back, and
	// HoldPreVotes the most a pre-vote reply is, so that two candidates
	// may campaign in one term.
	HoldVotes, HoldPreVotes time.Duration
	// Bridges, if set, runs bridge rounds: again and again, 0–1 s apart,
	// the leader crashes and restarts at once, and the nodes are split
	// into two sides that hear each other only through one node, the
	// bridge, for 0.75–1.5 s: each side may elect a leader with the
	// bridge's vote.
	Bridges bool
}

// Start starts the nemesis on e's run and returns what stops it.
func (n Nemesis) Start(e *testbed.Env) (func(), error) {
	if n.Messages == nil {
		return nil, fmt.Errorf("raftchaos: a nemesis needs its Messages")
	}
	for _, p := range []float64{n.Traps, n.CrashOnEntries, n.CrashVoters} {
		if p < 0 || p > 1 {
			return nil, fmt.Errorf("raftchaos: nemesis chance %v is not within [0, 1]", p)
		}
	}
	if n.Bridges && n.Heartbeat <= 0 {
		return nil, fmt.Errorf("raftchaos: bridge rounds with heartbeat %v: want it positive", n.Heartbeat)
	}
	s := &strikes{Nemesis: n, e: e, w: e.World, c: e.Cluster, replica: map[*sim.Host]int{}}
	for i := range s.c.Replicas(0) {
		s.replica[s.c.Hosts()[s.c.HostOf(0, i)]] = i
	}
	hold := Holds(s.w, n.Messages, n.HoldVotes, n.HoldPreVotes)
	s.delay = func(m labrpc.Message) time.Duration {
		if e.Calm() {
			return 0
		}
		return hold(m)
	}
	if err := s.c.Monkey().SetDelayRule(n.tapName(), s.rule); err != nil {
		return nil, err
	}
	if n.Traps > 0 {
		s.trap()
	}
	var stopBridges func()
	if n.Bridges {
		stopBridges = s.bridgeRounds()
	}
	return func() {
		s.stopped = true
		if stopBridges != nil {
			stopBridges()
		}
	}, nil
}

// tapName names the tap in the fault log, with what it holds back.
func (n Nemesis) tapName() string {
	var holds []string
	if n.HoldVotes > 0 {
		holds = append(holds, fmt.Sprintf("votes held back up to %v", n.HoldVotes))
	}
	if n.HoldPreVotes > 0 {
		holds = append(holds, fmt.Sprintf("pre-vote replies up to %v", n.HoldPreVotes))
	}
	if len(holds) == 0 {
		return "tap: the nemesis watches the replicas' messages"
	}
	return "tap: " + strings.Join(holds, ", ")
}

// Holds returns a delay rule that holds each vote request and reply back
// by up to votes, and each pre-vote reply by up to preVoteReplies (a zero
// bound holds none).
func Holds(w *sim.World, msgs Messages, votes, preVoteReplies time.Duration) labrpc.DelayRule {
	return func(m labrpc.Message) time.Duration {
		vote, pre := msgs.Vote(m)
		switch {
		case vote && !pre && votes > 0:
			return sim.Duration(w.Stream("nemesis"), 0, votes)
		case vote && pre && m.IsReply && preVoteReplies > 0:
			return sim.Duration(w.Stream("nemesis"), 0, preVoteReplies)
		}
		return 0
	}
}

// strikes is a nemesis at work on a run.
type strikes struct {
	Nemesis
	e       *testbed.Env
	w       *sim.World
	c       *cluster.Cluster
	replica map[*sim.Host]int // the replica of group 0 on each host
	delay   labrpc.DelayRule
	stopped bool

	// The traps.
	armed   bool
	seen    int // the last term whose first entries the traps saw
	trapped int // the traps in this run of them
	gen     int // counts traps: a heal meant for an earlier one does nothing

	entered map[int]int  // the last term whose entries each follower answered
	down    map[int]bool // the voters crashed that are not back yet
}

// rule is the tap, as the network's delay rule: it shows each message
// between two replicas to the strikes (from sends it: the server, for a
// reply), then returns the delay to add.
func (s *strikes) rule(m labrpc.Message) time.Duration {
	from, okFrom := s.replica[m.From]
	_, okTo := s.replica[m.To]
	if okFrom && okTo && !s.stopped && !s.e.Calm() {
		if term, ok := s.Messages.Entries(m); ok {
			if m.IsReply {
				s.crashOnEntries(from, term)
			} else {
				s.trapLeader(from, term)
			}
		}
		if vote, pre := s.Messages.Vote(m); vote && !pre && m.IsReply {
			s.crashVoter(from)
		}
	}
	return s.delay(m)
}

// chance reports true with probability p, drawing from the world's
// random numbers only if p is below 1.
func (s *strikes) chance(p float64) bool {
	return p >= 1 || (p > 0 && s.w.Stream("nemesis").Float64() < p)
}

// must applies f through the monkey; a fault the nemesis built is never
// malformed, so an error is the nemesis's bug.
func (s *strikes) must(f fault.Fault) {
	if err := s.c.Apply(f); err != nil {
		panic(fmt.Sprintf("raftchaos: nemesis: %v", err))
	}
}

// trap sets the traps within trapRearm, if the chance falls; else it
// tries again as long later.
func (s *strikes) trap() {
	s.w.After(sim.Duration(s.w.Stream("nemesis"), 0, trapRearm), func() {
		if s.stopped {
			return
		}
		if !s.chance(s.Traps) {
			s.trap()
			return
		}
		s.armed, s.seen, s.trapped = true, 0, 0
	})
}

// trapLeader cuts leader off with the followers it reaches that leave the
// rest a bare majority, if its entries of term are the first of the term
// the traps see.
func (s *strikes) trapLeader(leader, term int) {
	if !s.armed || term <= s.seen {
		return
	}
	s.seen = term
	n := s.c.Replicas(0)
	var reach []int
	for i := range n {
		if i != leader && s.c.Monkey().Connected(s.c.HostOf(0, leader), s.c.HostOf(0, i)) {
			reach = append(reach, i)
		}
	}
	partners := n - (n/2 + 1) - 1 // the leader and they leave a majority
	if len(reach) < partners || len(reach) == 0 {
		return
	}
	with := map[int]bool{leader: true}
	for range partners {
		k := s.w.Stream("nemesis").IntN(len(reach))
		with[reach[k]] = true
		reach = append(reach[:k], reach[k+1:]...)
	}
	var near, far []int
	for i := range n {
		if with[i] {
			near = append(near, s.c.HostOf(0, i))
		} else {
			far = append(far, s.c.HostOf(0, i))
		}
	}
	s.trapped++
	s.armed = s.trapped < trapRun
	s.gen++
	g := s.gen
	// After this event, so that the entries just sent are in flight: the
	// cut drops those to the far side on arrival.
	s.w.After(0, func() {
		s.must(fault.Fault{Kind: fault.Partition, Groups: [][]int{near, far}})
		s.w.After(sim.Duration(s.w.Stream("nemesis"), trapHealMin, trapHealMax), func() {
			if g != s.gen || s.stopped {
				return
			}
			s.armed = false
			s.must(fault.Fault{Kind: fault.Heal})
			s.trap()
		})
	})
}

// crashOnEntries crashes follower and restarts it at once, if it just
// answered the first AppendEntries with entries of term it has seen, and
// the chance falls.
func (s *strikes) crashOnEntries(follower, term int) {
	if s.CrashOnEntries == 0 || term <= s.entered[follower] {
		return
	}
	if s.entered == nil {
		s.entered = map[int]int{}
	}
	s.entered[follower] = term
	if !s.chance(s.CrashOnEntries) {
		return
	}
	h := s.c.HostOf(0, follower)
	s.w.After(0, func() {
		s.must(fault.Fault{Kind: fault.Kill, Host: h})
		s.must(fault.Fault{Kind: fault.Restart, Host: h})
	})
}

// crashVoter crashes voter, which just answered a vote request, if the
// chance falls, and restarts it within VoterDowntime.
func (s *strikes) crashVoter(voter int) {
	if s.CrashVoters == 0 || s.down[voter] || !s.chance(s.CrashVoters) {
		return
	}
	if s.down == nil {
		s.down = map[int]bool{}
	}
	s.down[voter] = true
	h := s.c.HostOf(0, voter)
	s.w.After(0, func() {
		s.must(fault.Fault{Kind: fault.Kill, Host: h})
		s.w.After(sim.Duration(s.w.Stream("nemesis"), 0, s.VoterDowntime), func() {
			s.must(fault.Fault{Kind: fault.Restart, Host: h})
			s.down[voter] = false
		})
	})
}

// bridgeRounds runs the bridge rounds until stopped, waiting out the
// calms; it returns what stops it.
func (s *strikes) bridgeRounds() func() {
	n := s.c.Replicas(0)
	return LeaderRounds(s.w, s.c, s.Heartbeat, sim.Duration(s.w.Stream("nemesis"), 0, roundGap), func(leader int, next func()) {
		if s.e.Calm() {
			s.w.After(s.Heartbeat, next)
			return
		}
		h := s.c.HostOf(0, leader)
		s.must(fault.Fault{Kind: fault.Kill, Host: h})
		s.must(fault.Fault{Kind: fault.Restart, Host: h})
		hosts := make([]int, n)
		for k, i := range s.w.Stream("nemesis").Perm(n) {
			hosts[k] = s.c.HostOf(0, i)
		}
		half := 1 + (n-1)/2
		s.must(fault.Fault{Kind: fault.Bridge, Host: hosts[0], Groups: [][]int{hosts[1:half], hosts[half:]}})
		s.w.After(sim.Duration(s.w.Stream("nemesis"), bridgeMin, bridgeMax), func() {
			s.must(fault.Fault{Kind: fault.Heal})
			next()
		})
	})
}

// LeaderRounds runs round on the leader of c's first group, again and
// again until stopped: first after first, then up to a second after round
// calls next; while the group has no leader, it waits wait. It returns
// what stops it.
func LeaderRounds(w *sim.World, c *cluster.Cluster, wait, first time.Duration, round func(leader int, next func())) func() {
	stopped := false
	var start func()
	start = func() {
		if stopped {
			return
		}
		leader, ok := c.Leader(0)
		if !ok {
			w.After(wait, start)
			return
		}
		round(leader, func() { w.After(sim.Duration(w.Stream("nemesis"), 0, roundGap), start) })
	}
	w.After(first, start)
	return func() { stopped = true }
}

// RaftMessages tells a nemesis what package raft's messages are.
type RaftMessages struct{}

// Entries returns the term of an AppendEntries that carries entries.
func (RaftMessages) Entries(m labrpc.Message) (int, bool) {
	args, ok := m.Args.(*raft.AppendEntriesArgs)
	if !ok || len(args.Entries) == 0 {
		return 0, false
	}
	return args.Term, true
}

// Vote reports whether m is a vote request or reply, and a pre-vote's.
func (RaftMessages) Vote(m labrpc.Message) (vote, preVote bool) {
	args, ok := m.Args.(*raft.RequestVoteArgs)
	return ok, ok && args.PreVote
}
