package raft

import (
	"testing"
	"time"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// benchCluster is a bare n-node cluster, without the test harness's
// checking, that counts what its first node applies. Each node snapshots
// every 1000 entries, as a service with a bounded log would.
type benchCluster struct {
	w       *sim.World
	rafts   []*Raft
	applied int
}

func newBenchCluster(b *testing.B, n int) *benchCluster {
	w := sim.NewWorld(1)
	c := &benchCluster{w: w, rafts: make([]*Raft, n)}
	factory := func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
		host, peers, me, ps := n.Host, n.Peers, n.Me, n.Persister
		apply := func(m ApplyMsg) {
			if me == 0 {
				c.applied++
			}
			if m.CommandValid && m.CommandIndex%1000 == 0 {
				c.rafts[me].Snapshot(m.CommandIndex, []byte("snapshot"))
			}
		}
		rf, err := Make(host, peers, me, ps, apply, LabConfig())
		if err != nil {
			return nil, nil, err
		}
		c.rafts[me] = rf
		return rf, []*labrpc.Service{rf.Service()}, nil
	}
	if _, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "raft", Replicas: n, Factory: factory}}}); err != nil {
		b.Fatal(err)
	}
	return c
}

func (c *benchCluster) leader() *Raft {
	for _, rf := range c.rafts {
		if _, ok := rf.GetState(); ok {
			return rf
		}
	}
	return nil
}

// BenchmarkCommit measures committed entries per wall second on a
// 5-node cluster: a client offers 10 commands every virtual millisecond
// to the leader, and the benchmark runs until b.N entries are applied.
func BenchmarkCommit(b *testing.B) {
	c := newBenchCluster(b, 5)
	if !c.w.RunUntil(func() bool { return c.leader() != nil }, 10*time.Second) {
		b.Fatal("no leader")
	}
	var offer func()
	offer = func() {
		if l := c.leader(); l != nil {
			for k := range 10 {
				l.Start(k)
			}
		}
		c.w.After(time.Millisecond, offer)
	}
	c.w.After(0, offer)
	b.ReportAllocs()
	b.ResetTimer()
	start := c.w.Now()
	c.w.RunUntil(func() bool { return c.applied >= b.N }, time.Hour)
	b.ReportMetric(float64(c.applied)/b.Elapsed().Seconds(), "entries/s")
	b.ReportMetric((c.w.Now()-start).Seconds()/b.Elapsed().Seconds(), "virtual-s/s")
}

// BenchmarkIdle measures simulated seconds per wall second of an idle
// 5-node cluster: a leader sending heartbeats, nothing else.
func BenchmarkIdle(b *testing.B) {
	c := newBenchCluster(b, 5)
	c.w.Run(2 * time.Second)
	b.ResetTimer()
	for range b.N {
		c.w.Run(time.Second)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "virtual-s/s")
}

// BenchmarkInspect measures what a recording pays to read one node's
// state (Host.State), as it does after every event on the hosts the event
// touched: a leader's, after 100 entries.
func BenchmarkInspect(b *testing.B) {
	c := newBenchCluster(b, 5)
	if !c.w.RunUntil(func() bool { return c.leader() != nil }, 10*time.Second) {
		b.Fatal("no leader")
	}
	for k := range 100 {
		c.leader().Start(k)
	}
	c.w.Run(time.Second)
	host := c.leader().host
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if len(host.State()) == 0 {
			b.Fatal("the leader's host shows nothing")
		}
	}
}
