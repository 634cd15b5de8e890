package raft

import (
	"testing"
	"time"

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
