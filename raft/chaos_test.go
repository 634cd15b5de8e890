package raft

// The election tests of the Raft-KV-with-ChaosMonkey paper, at its cluster
// sizes, with faults from the chaos package.

import (
	"fmt"
	"testing"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/fault"
	"github.com/replab/replab/simtest"
)

var clusterSizes = []int{5, 11, 17, 23, 31}

func TestKillLeaderRepeatedly(t *testing.T) { runScenario(t, killLeaderRepeatedly) }

// killLeaderRepeatedly kills each new leader of 31 servers until 16, a
// bare majority, remain; every round must elect exactly one leader.
func killLeaderRepeatedly(t simtest.T, seed int64, rc Config) *config {
	servers := 31
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (paper): kill the leader repeatedly, 31 servers down to 16")
	for alive := servers; alive > servers/2+1; alive-- {
		cfg.crash1(cfg.checkOneLeader())
	}
	cfg.checkOneLeader()
	cfg.one(cfg.randCmd(), servers/2+1, true)
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
		cfg.begin(fmt.Sprintf("Test (paper): majority/minority partition, %d servers", n))
		m := cfg.monkey()
		leader := cfg.checkOneLeader()
		term0, _ := cfg.rafts[leader].GetState()
		split := chaos.SplitMajority(n, leader, cfg.w.Rand())
		if err := m.Apply(split); err != nil {
			t.Fatalf("%v", err)
		}
		cfg.sleep(2 * RaftElectionTimeout)
		majority, minority := split.Groups[0], split.Groups[1]
		newLeaders := cfg.leadersAmong(majority)
		if len(newLeaders) != 1 {
			t.Fatalf("the majority %v has leaders %v; want exactly one", majority, newLeaders)
		}
		if term, _ := cfg.rafts[newLeaders[0]].GetState(); term <= term0 {
			t.Fatalf("the majority's leader has term %d, not above the old leader's %d", term, term0)
		}
		if old := cfg.leadersAmong(minority); rc.CheckQuorum && len(old) != 0 {
			t.Fatalf("servers %v in the minority %v still lead", old, minority)
		}
		cfg.one(cfg.randCmd(), len(majority), true)
		cfg.healAndAgree(m)
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
		cfg.begin(fmt.Sprintf("Test (paper): all-minority partition, %d servers", n))
		m := cfg.monkey()
		leader := cfg.checkOneLeader()
		term0, _ := cfg.rafts[leader].GetState()
		if err := m.Apply(chaos.SplitAllMinority(n, cfg.w.Rand())); err != nil {
			t.Fatalf("%v", err)
		}
		index, _, _ := cfg.rafts[leader].Start(cfg.randCmd())
		cfg.sleep(2 * RaftElectionTimeout)
		for _, i := range cfg.leadersAmong(allServers(n)) {
			if term, _ := cfg.rafts[i].GetState(); term > term0 || rc.CheckQuorum {
				t.Fatalf("server %d leads in term %d during an all-minority partition (old term %d)", i, term, term0)
			}
		}
		if nd, _ := cfg.nCommitted(index); nd > 0 {
			t.Fatalf("%d servers committed index %d without a majority", nd, index)
		}
		cfg.healAndAgree(m)
		return cfg
	}
}

// healAndAgree heals every partition and checks that the whole cluster
// elects one leader and agrees again.
func (cfg *config) healAndAgree(m *chaos.Monkey) {
	cfg.t.Helper()
	if err := m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
		cfg.t.Fatalf("%v", err)
	}
	cfg.checkOneLeader()
	cfg.one(cfg.randCmd(), cfg.n, true)
}

// monkey returns a ChaosMonkey on the cluster's hosts; its fault log is
// printed if the test fails.
func (cfg *config) monkey() *chaos.Monkey {
	m, err := chaos.New(cfg.net, cfg.hosts, chaos.Hooks{Kill: cfg.crash1, Restart: func(i int) { cfg.start1(i); cfg.connect(i) }})
	if err != nil {
		cfg.t.Fatalf("%v", err)
	}
	if tb, ok := cfg.t.(testing.TB); ok {
		simtest.Explain(tb, "fault log", func() string { return m.Log().String() })
	}
	return m
}

// leadersAmong returns the live servers in group that think they lead.
func (cfg *config) leadersAmong(group []int) []int {
	var ls []int
	for _, i := range group {
		if cfg.rafts[i] != nil {
			if _, isLeader := cfg.rafts[i].GetState(); isLeader {
				ls = append(ls, i)
			}
		}
	}
	return ls
}

func allServers(n int) []int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}
