package raft

import (
	"testing"
	"time"

	"github.com/replab/replab/simtest"
)

func TestInitialElection(t *testing.T) { runScenario(t, initialElection) }

func initialElection(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3A): initial election")
	cfg.checkOneLeader()
	cfg.sleep(50 * time.Millisecond)
	term1 := cfg.checkTerms()
	if term1 < 1 {
		t.Fatalf("term is %d, but should be at least 1", term1)
	}
	// With no failures, the leader and the term should stay.
	cfg.sleep(2 * RaftElectionTimeout)
	if term2 := cfg.checkTerms(); term1 != term2 {
		t.Fatalf("term changed from %d to %d even though there were no failures", term1, term2)
	}
	cfg.checkOneLeader()
	return cfg
}

func TestReElection(t *testing.T) { runScenario(t, reElection) }

func reElection(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3A): election after network failure")
	leader1 := cfg.checkOneLeader()

	// If the leader disconnects, a new one should be elected.
	cfg.disconnect(leader1)
	cfg.checkOneLeader()

	// If the old leader rejoins, that shouldn't disturb the new one.
	cfg.connect(leader1)
	leader2 := cfg.checkOneLeader()

	// With no quorum, no new leader should be elected.
	cfg.disconnect(leader2)
	cfg.disconnect((leader2 + 1) % servers)
	cfg.sleep(2 * RaftElectionTimeout)
	cfg.checkNoLeader()

	// With a quorum again, a leader should be elected.
	cfg.connect((leader2 + 1) % servers)
	cfg.checkOneLeader()

	// Rejoining the last node shouldn't stop there being a leader.
	cfg.connect(leader2)
	cfg.checkOneLeader()
	return cfg
}

func TestManyElections(t *testing.T) { runScenario(t, manyElections) }

func manyElections(t simtest.T, seed int64, rc Config) *config {
	servers := 7
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3A): multiple elections")
	cfg.checkOneLeader()
	for range 10 {
		// Disconnect three nodes; four remain, a majority.
		i1, i2, i3 := cfg.randInt(servers), cfg.randInt(servers), cfg.randInt(servers)
		cfg.disconnect(i1)
		cfg.disconnect(i2)
		cfg.disconnect(i3)
		// Either the current leader should still be alive, or the
		// remaining four should elect a new one.
		cfg.checkOneLeader()
		cfg.connect(i1)
		cfg.connect(i2)
		cfg.connect(i3)
	}
	cfg.checkOneLeader()
	return cfg
}
