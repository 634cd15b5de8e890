package raft

import (
	"fmt"
	"testing"
	"time"

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
	net := labrpc.MakeNetwork(w)
	hosts, err := w.NewHosts(n, "raft")
	if err != nil {
		b.Fatal(err)
	}
	c := &benchCluster{w: w, rafts: make([]*Raft, n)}
	for i := range n {
		ends := make([]*labrpc.ClientEnd, n)
		for j := range n {
			name := fmt.Sprintf("%d->%d", i, j)
			ends[j] = net.MakeEnd(name, hosts[i])
			net.Connect(name, j)
			net.Enable(name, true)
		}
		apply := func(m ApplyMsg) {
			if i == 0 {
				c.applied++
			}
			if m.CommandValid && m.CommandIndex%1000 == 0 {
				c.rafts[i].Snapshot(m.CommandIndex, []byte("snapshot"))
			}
		}
		rf, err := Make(hosts[i], ends, i, hosts[i].Persister(), apply, LabConfig())
		if err != nil {
			b.Fatal(err)
		}
		c.rafts[i] = rf
		srv := labrpc.MakeServer(hosts[i])
		srv.AddService(rf.Service())
		net.AddServer(i, srv)
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
