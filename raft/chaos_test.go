package raft

// The election tests of the Raft-KV-with-ChaosMonkey paper, at its cluster
// sizes, with faults from the chaos package.

import (
	"fmt"
	"testing"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/simtest"
)

var clusterSizes = []int{5, 11, 17, 23, 31}

func TestKillLeaderRepeatedly(t *testing.T) { runScenario(t, killLeaderRepeatedly) }

// killLeaderRepeatedly kills each new leader of 31 servers until 16, a
// bare majority, remain; every round must elect exactly one leader.
func killLeaderRepeatedly(t simtest.T, seed int64, rc Config) *config {
	servers := 31
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.Begin("Test (paper): kill the leader repeatedly, 31 servers down to 16")
	for alive := servers; alive > servers/2+1; alive-- {
		cfg.Crash1(cfg.CheckOneLeader())
	}
	cfg.CheckOneLeader()
	cfg.One(cfg.RandCmd(), servers/2+1, true)
	return cfg
}

func TestPartitionMajority(t *testing.T) {
	for _, n := range clusterSizes {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) { runScenario(t, partitionMajority(n)) })
	}
}

// partitionMajority splits n servers into a majority and a minority that
// holds the leader: the majority must elect a new leader, and the old one
// must step down (CheckQuorum). After healing, all agree.
func partitionMajority(n int) scenario {
	return func(t simtest.T, seed int64, rc Config) *config {
		cfg := makeConfig(t, seed, n, false, false, rc)
		cfg.Begin(fmt.Sprintf("Test (paper): majority/minority partition, %d servers", n))
		leader := cfg.CheckOneLeader()
		term0, _ := cfg.raft(leader).GetState()
		split := chaos.SplitMajority(n, leader, cfg.World().Rand())
		cfg.Apply(split)
		cfg.Sleep(2 * rafttest.ElectionTimeout)
		majority, minority := split.Groups[0], split.Groups[1]
		newLeaders := cfg.LeadersAmong(majority)
		if len(newLeaders) != 1 {
			t.Fatalf("the majority %v has leaders %v; want exactly one", majority, newLeaders)
		}
		if term, _ := cfg.raft(newLeaders[0]).GetState(); term <= term0 {
			t.Fatalf("the majority's leader has term %d, not above the old leader's %d", term, term0)
		}
		if old := cfg.LeadersAmong(minority); rc.CheckQuorum && len(old) != 0 {
			t.Fatalf("servers %v in the minority %v still lead", old, minority)
		}
		cfg.One(cfg.RandCmd(), len(majority), true)
		cfg.healAndAgree()
		return cfg
	}
}

func TestPartitionAllMinority(t *testing.T) {
	for _, n := range clusterSizes {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) { runScenario(t, partitionAllMinority(n)) })
	}
}

// partitionAllMinority splits n servers into groups that are all smaller
// than a majority: no group may elect a leader, nothing may commit, and
// the old leader steps down. After healing, all agree.
func partitionAllMinority(n int) scenario {
	return func(t simtest.T, seed int64, rc Config) *config {
		cfg := makeConfig(t, seed, n, false, false, rc)
		cfg.Begin(fmt.Sprintf("Test (paper): all-minority partition, %d servers", n))
		leader := cfg.CheckOneLeader()
		term0, _ := cfg.raft(leader).GetState()
		cfg.Apply(chaos.SplitAllMinority(n, cfg.World().Rand()))
		index, _, _ := cfg.raft(leader).Start(cfg.RandCmd())
		cfg.Sleep(2 * rafttest.ElectionTimeout)
		for _, i := range cfg.LeadersAmong(cfg.All()) {
			if term, _ := cfg.raft(i).GetState(); term > term0 || rc.CheckQuorum {
				t.Fatalf("server %d leads in term %d during an all-minority partition (old term %d)", i, term, term0)
			}
		}
		if nd, _ := cfg.NCommitted(index); nd > 0 {
			t.Fatalf("%d servers committed index %d without a majority", nd, index)
		}
		cfg.healAndAgree()
		return cfg
	}
}

// healAndAgree heals every partition and checks that the whole cluster
// elects one leader and agrees again.
func (cfg *config) healAndAgree() {
	cfg.t.Helper()
	cfg.Apply(fault.Fault{Kind: fault.Heal})
	cfg.CheckOneLeader()
	cfg.One(cfg.RandCmd(), cfg.N(), true)
}
