package raft

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/simtest"
)

func TestReadIndex(t *testing.T) { runScenario(t, readIndex) }

// readIndex checks that a leader confirms reads only with a majority, and
// fails them when it loses leadership.
func readIndex(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.Begin("Test: ReadIndex")
	leader := cfg.CheckOneLeader()
	if cfg.raft((leader + 1) % servers).ReadIndex(func(int, bool) {}) {
		t.Fatalf("a follower accepted a ReadIndex")
	}
	index := cfg.One(101, servers, true)
	leader = cfg.CheckOneLeader()

	confirmed, gotIndex := 0, -1
	if !cfg.raft(leader).ReadIndex(func(i int, ok bool) {
		if ok {
			confirmed++
			gotIndex = i
		}
	}) {
		t.Fatalf("the leader refused a ReadIndex after committing in its term")
	}
	cfg.Sleep(10 * time.Millisecond) // one round trip, not a heartbeat
	if confirmed != 1 || gotIndex != index {
		t.Fatalf("ReadIndex confirmed %d times at index %d; want once at %d", confirmed, gotIndex, index)
	}

	// Cut the leader off: its read is never confirmed, and fails when it
	// steps down.
	cfg.Disconnect(leader)
	failed := false
	if !cfg.raft(leader).ReadIndex(func(_ int, ok bool) {
		if ok {
			t.Fatalf("a partitioned leader confirmed a read")
		}
		failed = true
	}) {
		t.Fatalf("the leader refused a ReadIndex")
	}
	cfg.Sleep(2 * rafttest.ElectionTimeout)
	if !failed {
		t.Fatalf("the partitioned leader's read was neither confirmed nor failed")
	}
	return cfg
}

func TestLeaseRead(t *testing.T) { runScenario(t, leaseRead) }

// leaseRead checks that a leader holds a lease while a majority answers
// and loses it within LeaseDuration of being cut off.
func leaseRead(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.Begin("Test: LeaseRead")
	cfg.One(101, servers, true)
	leader := cfg.CheckOneLeader()
	if _, ok := cfg.raft(leader).LeaseRead(); !ok {
		t.Fatalf("a healthy leader has no lease")
	}
	if _, ok := cfg.raft((leader + 1) % servers).LeaseRead(); ok {
		t.Fatalf("a follower has a lease")
	}
	cfg.Disconnect(leader)
	cfg.Sleep(rc.LeaseDuration())
	if _, ok := cfg.raft(leader).LeaseRead(); ok {
		t.Fatalf("a leader cut off for LeaseDuration still has a lease")
	}
	return cfg
}

func TestLeaseSurvivesFollowerRestart(t *testing.T) { runScenario(t, leaseSurvivesFollowerRestart) }

// leaseSurvivesFollowerRestart crashes a follower that acknowledged the
// leader's lease and brings it straight back, cuts the leader off, and has
// the other follower campaign at once: while the old leader still holds
// its lease, the restarted follower must not help elect anyone.
func leaseSurvivesFollowerRestart(t simtest.T, seed int64, rc Config) *config {
	cfg := makeConfig(t, seed, 3, false, false, rc)
	cfg.Begin("Test: a lease survives a follower's restart")
	cfg.One(101, 3, true)
	leader := cfg.CheckOneLeader()
	a, b := (leader+1)%3, (leader+2)%3
	cfg.Sleep(rc.Heartbeat)
	if _, ok := cfg.raft(leader).LeaseRead(); !ok {
		t.Fatalf("a healthy leader has no lease")
	}
	cfg.Start1(a)
	cfg.Connect(a)
	cfg.Disconnect(leader)
	cfg.raft(b).campaign(true)
	cfg.raft(b).flush()
	for {
		if _, ok := cfg.raft(leader).LeaseRead(); !ok {
			break
		}
		for _, i := range []int{a, b} {
			if _, isLeader := cfg.raft(i).GetState(); isLeader {
				t.Fatalf("server %d leads while the old leader %d still holds its lease", i, leader)
			}
		}
		cfg.Sleep(time.Millisecond)
	}
	cfg.CheckOneLeader()
	return cfg
}

// watchLeases checks, every millisecond of virtual time from now on, the
// promise behind LeaseRead: while a node holds a lease, no other node leads
// in a higher term.
func (cfg *config) watchLeases() {
	var check func()
	check = func() {
		for i := range cfg.N() {
			rf := cfg.raft(i)
			if rf == nil {
				continue
			}
			if _, ok := rf.LeaseRead(); !ok {
				continue
			}
			for j := range cfg.N() {
				other := cfg.raft(j)
				if other == nil {
					continue
				}
				if term, isLeader := other.GetState(); isLeader && term > rf.term {
					cfg.t.Fatalf("server %d leads in term %d while server %d holds a lease from term %d", j, term, i, rf.term)
				}
			}
		}
		cfg.World().After(time.Millisecond, check)
	}
	check()
}

// delayPreVoteReplies holds every pre-vote reply back by d.
func (cfg *config) delayPreVoteReplies(d time.Duration) {
	if err := cfg.Cluster().Monkey().SetDelayRule(fmt.Sprintf("pre-vote replies %v late", d), func(m labrpc.Message) time.Duration {
		if args, ok := m.Args.(*RequestVoteArgs); ok && m.IsReply && args.PreVote {
			return d
		}
		return 0
	}); err != nil {
		cfg.t.Fatalf("%v", err)
	}
}

func TestPreVoteEndsWhenLeaderHeard(t *testing.T) { runScenario(t, preVoteEndsWhenLeaderHeard) }

// preVoteEndsWhenLeaderHeard has a follower ask for pre-votes just before
// it hears the leader and acknowledges its lease, with the pre-vote replies
// held back past the next heartbeat; then the leader is cut off, holding
// its lease. When the replies arrive, the follower must not run an
// election, which the node that granted them would help it win while the
// old leader still serves reads from its lease.
func preVoteEndsWhenLeaderHeard(t simtest.T, seed int64, rc Config) *config {
	cfg := makeConfig(t, seed, 3, false, false, rc)
	cfg.Begin("Test: a pre-election ends when the leader is heard")
	cfg.One(101, 3, true)
	leader := cfg.CheckOneLeader()
	f, g := (leader+1)%3, (leader+2)%3
	cfg.watchLeases()
	cfg.delayPreVoteReplies(rc.Heartbeat * 3 / 2)
	// g stops hearing the leader, and so is free to grant f a pre-vote
	// and a vote.
	cfg.Apply(fault.Fault{Kind: fault.Cut, Host: leader, To: g})
	cfg.Apply(fault.Fault{Kind: fault.Cut, Host: g, To: leader})
	cfg.Sleep(rc.ElectionMin)
	// f's election timer fires, as if just before a heartbeat arrives.
	cfg.raft(f).campaign(true)
	cfg.raft(f).flush()
	cfg.Sleep(rc.Heartbeat * 6 / 5) // f answers a heartbeat: the leader's lease is renewed
	if _, ok := cfg.raft(leader).LeaseRead(); !ok {
		t.Fatalf("the leader %d holds no lease although %d answers it", leader, f)
	}
	cfg.Disconnect(leader)
	cfg.Sleep(2 * rafttest.ElectionTimeout)
	cfg.Connect(leader) // heals the cuts too
	cfg.CheckOneLeader()
	cfg.One(102, 3, true)
	return cfg
}
