package raft

import (
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/simtest"
)

func TestReadIndex(t *testing.T) { runScenario(t, readIndex) }

// readIndex checks that a leader confirms reads only with a majority, and
// fails them when it loses leadership.
func readIndex(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test: ReadIndex")
	leader := cfg.checkOneLeader()
	if cfg.rafts[(leader+1)%servers].ReadIndex(func(int, bool) {}) {
		t.Fatalf("a follower accepted a ReadIndex")
	}
	index := cfg.one(101, servers, true)
	leader = cfg.checkOneLeader()

	confirmed, gotIndex := 0, -1
	if !cfg.rafts[leader].ReadIndex(func(i int, ok bool) {
		if ok {
			confirmed++
			gotIndex = i
		}
	}) {
		t.Fatalf("the leader refused a ReadIndex after committing in its term")
	}
	cfg.sleep(10 * time.Millisecond) // one round trip, not a heartbeat
	if confirmed != 1 || gotIndex != index {
		t.Fatalf("ReadIndex confirmed %d times at index %d; want once at %d", confirmed, gotIndex, index)
	}

	// Cut the leader off: its read is never confirmed, and fails when it
	// steps down.
	cfg.disconnect(leader)
	failed := false
	if !cfg.rafts[leader].ReadIndex(func(_ int, ok bool) {
		if ok {
			t.Fatalf("a partitioned leader confirmed a read")
		}
		failed = true
	}) {
		t.Fatalf("the leader refused a ReadIndex")
	}
	cfg.sleep(2 * RaftElectionTimeout)
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
	cfg.begin("Test: LeaseRead")
	cfg.one(101, servers, true)
	leader := cfg.checkOneLeader()
	if _, ok := cfg.rafts[leader].LeaseRead(); !ok {
		t.Fatalf("a healthy leader has no lease")
	}
	if _, ok := cfg.rafts[(leader+1)%servers].LeaseRead(); ok {
		t.Fatalf("a follower has a lease")
	}
	cfg.disconnect(leader)
	cfg.sleep(rc.LeaseDuration())
	if _, ok := cfg.rafts[leader].LeaseRead(); ok {
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
	cfg.begin("Test: a lease survives a follower's restart")
	cfg.one(101, 3, true)
	leader := cfg.checkOneLeader()
	a, b := (leader+1)%3, (leader+2)%3
	cfg.sleep(rc.Heartbeat)
	if _, ok := cfg.rafts[leader].LeaseRead(); !ok {
		t.Fatalf("a healthy leader has no lease")
	}
	cfg.start1(a)
	cfg.connect(a)
	cfg.disconnect(leader)
	cfg.rafts[b].campaign(true)
	cfg.rafts[b].flush()
	for {
		if _, ok := cfg.rafts[leader].LeaseRead(); !ok {
			break
		}
		for _, i := range []int{a, b} {
			if _, isLeader := cfg.rafts[i].GetState(); isLeader {
				t.Fatalf("server %d leads while the old leader %d still holds its lease", i, leader)
			}
		}
		cfg.sleep(time.Millisecond)
	}
	cfg.checkOneLeader()
	return cfg
}

// watchLeases checks, every millisecond of virtual time from now on, the
// promise behind LeaseRead: while a node holds a lease, no other node leads
// in a higher term.
func (cfg *config) watchLeases() {
	var check func()
	check = func() {
		for i, rf := range cfg.rafts {
			if rf == nil {
				continue
			}
			if _, ok := rf.LeaseRead(); !ok {
				continue
			}
			for j, other := range cfg.rafts {
				if other == nil {
					continue
				}
				if term, isLeader := other.GetState(); isLeader && term > rf.term {
					cfg.t.Fatalf("server %d leads in term %d while server %d holds a lease from term %d", j, term, i, rf.term)
				}
			}
		}
		cfg.w.After(time.Millisecond, check)
	}
	check()
}

// delayPreVoteReplies holds every pre-vote reply back by d.
func (cfg *config) delayPreVoteReplies(d time.Duration) {
	cfg.net.SetDelayRule(func(m labrpc.Message) time.Duration {
		if args, ok := m.Args.(*RequestVoteArgs); ok && m.IsReply && args.PreVote {
			return d
		}
		return 0
	})
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
	cfg.begin("Test: a pre-election ends when the leader is heard")
	cfg.one(101, 3, true)
	leader := cfg.checkOneLeader()
	f, g := (leader+1)%3, (leader+2)%3
	cfg.watchLeases()
	cfg.delayPreVoteReplies(rc.Heartbeat * 3 / 2)
	// g stops hearing the leader, and so is free to grant f a pre-vote
	// and a vote.
	cfg.net.SetLink(cfg.hosts[leader], cfg.hosts[g], false)
	cfg.net.SetLink(cfg.hosts[g], cfg.hosts[leader], false)
	cfg.sleep(rc.ElectionMin)
	// f's election timer fires, as if just before a heartbeat arrives.
	cfg.rafts[f].campaign(true)
	cfg.rafts[f].flush()
	cfg.sleep(rc.Heartbeat * 6 / 5) // f answers a heartbeat: the leader's lease is renewed
	if _, ok := cfg.rafts[leader].LeaseRead(); !ok {
		t.Fatalf("the leader %d holds no lease although %d answers it", leader, f)
	}
	cfg.disconnect(leader)
	cfg.sleep(2 * RaftElectionTimeout)
	cfg.net.HealLinks()
	cfg.connect(leader)
	cfg.checkOneLeader()
	cfg.one(102, 3, true)
	return cfg
}
