package rafttest

import (
	"time"

	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim/simtest"
)

func initialElection(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3A): initial election")
	cfg.CheckOneLeader()
	cfg.Sleep(50 * time.Millisecond)
	term1 := cfg.CheckTerms()
	if term1 < 1 {
		t.Fatalf("term is %d, but should be at least 1", term1)
	}
	// With no failures, the leader and the term should stay.
	cfg.Sleep(2 * ElectionTimeout)
	if term2 := cfg.CheckTerms(); term1 != term2 {
		t.Fatalf("term changed from %d to %d even though there were no failures", term1, term2)
	}
	cfg.CheckOneLeader()
	return cfg
}

func reElection(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3A): election after network failure")
	leader1 := cfg.CheckOneLeader()

	// If the leader disconnects, a new one should be elected.
	cfg.Disconnect(leader1)
	cfg.CheckOneLeader()

	// If the old leader rejoins, that shouldn't disturb the new one.
	cfg.Connect(leader1)
	leader2 := cfg.CheckOneLeader()

	// With no quorum, no new leader should be elected.
	cfg.Disconnect(leader2)
	cfg.Disconnect((leader2 + 1) % servers)
	cfg.Sleep(2 * ElectionTimeout)
	cfg.CheckNoLeader()

	// With a quorum again, a leader should be elected.
	cfg.Connect((leader2 + 1) % servers)
	cfg.CheckOneLeader()

	// Rejoining the last node shouldn't stop there being a leader.
	cfg.Connect(leader2)
	cfg.CheckOneLeader()
	return cfg
}

func manyElections(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 7
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3A): multiple elections")
	cfg.CheckOneLeader()
	for range 10 {
		// Disconnect three nodes; four remain, a majority.
		i1, i2, i3 := cfg.RandInt(servers), cfg.RandInt(servers), cfg.RandInt(servers)
		cfg.Disconnect(i1)
		cfg.Disconnect(i2)
		cfg.Disconnect(i3)
		// Either the current leader should still be alive, or the
		// remaining four should elect a new one.
		cfg.CheckOneLeader()
		cfg.Connect(i1)
		cfg.Connect(i2)
		cfg.Connect(i3)
	}
	cfg.CheckOneLeader()
	return cfg
}
