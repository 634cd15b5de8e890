package raft

import (
	"testing"

	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/simtest"
)

func TestLeadershipListeners(t *testing.T) { runScenario(t, leadershipListeners) }

// leadershipListeners subscribes two listeners to the leader's news: when
// it is cut off and steps down, both hear it, in the order they
// subscribed, once.
func leadershipListeners(t simtest.T, seed int64, rc Config) *config {
	cfg := makeConfig(t, seed, 3, false, false, rc)
	cfg.Begin("Test: leadership news for two listeners")
	leader := cfg.CheckOneLeader()
	var heard []string
	cfg.raft(leader).OnLeadership(func(_ int, leading bool) {
		if !leading {
			heard = append(heard, "first")
		}
	})
	cfg.raft(leader).OnLeadership(func(_ int, leading bool) {
		if !leading {
			heard = append(heard, "second")
		}
	})
	cfg.Disconnect(leader)
	cfg.Sleep(2 * rafttest.ElectionTimeout)
	if len(heard) != 2 || heard[0] != "first" || heard[1] != "second" {
		t.Fatalf("the deposed leader's listeners heard %v; want [first second]", heard)
	}
	return cfg
}
