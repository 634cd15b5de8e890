package rafttest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

// ElectionTimeout is the lab's bound on how long an election may take.
const ElectionTimeout = 1000 * time.Millisecond

// SnapshotInterval is how many entries the snapshotting applier applies
// between snapshots.
const SnapshotInterval = 10

// MaxLogSize bounds the persisted Raft state while snapshots are taken.
const MaxLogSize = 2000

// A Harness is the lab's test configuration on the cluster harness: n
// nodes of one Raft group on a simulated world, an applier per node that
// checks what it applies against the others, and the lab's helpers
// (connect, crash, one, ...), driving virtual time instead of sleeping.
// Every disconnection, crash and restart goes through the cluster's monkey
// and shows in its fault log.
type Harness struct {
	t simtest.T
	w *sim.World
	c *cluster.Cluster
	n int

	connected []bool
	logs      *Logs
}

// New builds a cluster of n nodes made by mk on a fresh world for seed,
// all connected. With snapshot, each node's applier asks it for a snapshot
// every SnapshotInterval entries.
func New(t simtest.T, seed int64, n int, unreliable, snapshot bool, mk raftapi.Make) *Harness {
	t.Helper()
	w := sim.NewWorld(seed)
	tb, isTB := t.(testing.TB)
	if isTB {
		w = simtest.NewWorld(tb, seed) // honours -simtrace
	}
	every := 0
	if snapshot {
		every = SnapshotInterval
	}
	logs, err := NewLogs(n, mk, every)
	if err != nil {
		t.Fatalf("%v", err)
	}
	logs.OnViolation(func(err error) { t.Fatalf("%v", err) })
	h := &Harness{t: t, w: w, n: n, connected: make([]bool, n), logs: logs}
	for i := range n {
		h.connected[i] = true
	}
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "raft", Replicas: n, Factory: logs.Factory}}})
	if err != nil {
		t.Fatalf("%v", err)
	}
	h.c = c
	if isTB {
		simtest.Explain(tb, "cluster state", h.describe)
		simtest.Explain(tb, "fault log", func() string { return c.Log().String() })
	}
	h.Apply(fault.Fault{Kind: fault.Unreliable, On: unreliable})
	return h
}

// Node returns server i's node, or nil while it is crashed.
func (h *Harness) Node(i int) raftapi.Raft {
	if r := h.c.Replica(0, i); r != nil {
		return r.(raftapi.Raft)
	}
	return nil
}

// N returns the number of servers.
func (h *Harness) N() int { return h.n }

// World returns the harness's world.
func (h *Harness) World() *sim.World { return h.w }

// Net returns the network.
func (h *Harness) Net() *labrpc.Network { return h.c.Net() }

// Host returns server i's host.
func (h *Harness) Host(i int) *sim.Host { return h.c.Hosts()[h.c.HostOf(0, i)] }

// Cluster returns the cluster the servers run on.
func (h *Harness) Cluster() *cluster.Cluster { return h.c }

// Apply applies a fault through the cluster's monkey, failing the test if
// it is malformed. Servers are named by index.
func (h *Harness) Apply(f fault.Fault) {
	h.t.Helper()
	if err := h.c.Apply(f); err != nil {
		h.t.Fatalf("%v", err)
	}
}

// Crash1 crashes server i: it is disconnected, its host dies (timers,
// pending events and memory gone), and only what it persisted survives.
func (h *Harness) Crash1(i int) {
	h.Disconnect(i)
	h.Apply(fault.Fault{Kind: fault.Kill, Host: h.c.HostOf(0, i)})
}

// Start1 crashes server i if it is up, then starts it again from what it
// persisted, with fresh ends, so that nothing its last incarnation sent is
// answered to it. It stays disconnected until Connect.
func (h *Harness) Start1(i int) {
	h.Crash1(i)
	h.Apply(fault.Fault{Kind: fault.Restart, Host: h.c.HostOf(0, i)})
}

// Connect attaches server i to the network: it talks to every connected
// server.
func (h *Harness) Connect(i int) { h.setConnected(i, true) }

// Disconnect detaches server i from the network: it talks to no one.
func (h *Harness) Disconnect(i int) { h.setConnected(i, false) }

// Bridge cuts the servers other than b apart from each other, each still
// talking to b, which hears them all (a partial partition: fault.Bridge).
// Every server then counts as connected; the next Connect, Disconnect or
// Only replaces the bridge.
func (h *Harness) Bridge(b int) {
	if b < 0 || b >= h.n {
		h.t.Fatalf("rafttest: no server %d to bridge (%d servers)", b, h.n)
		return
	}
	var sides [][]int
	for i := range h.n {
		h.connected[i] = true
		if i != b {
			sides = append(sides, []int{h.c.HostOf(0, i)})
		}
	}
	h.Apply(fault.Fault{Kind: fault.Bridge, Host: h.c.HostOf(0, b), Groups: sides})
}

// Connected reports whether server i is connected.
func (h *Harness) Connected(i int) bool { return h.connected[i] }

func (h *Harness) setConnected(i int, up bool) {
	h.connected[i] = up
	h.partition()
}

// partition cuts the disconnected servers off, each alone, or heals the
// network if all are connected.
func (h *Harness) partition() {
	var group []int
	for j, up := range h.connected {
		if up {
			group = append(group, h.c.HostOf(0, j))
		}
	}
	if len(group) == h.n {
		h.Apply(fault.Fault{Kind: fault.Heal})
		return
	}
	h.Apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{group}})
}

// Only connects exactly the given servers to each other.
func (h *Harness) Only(servers ...int) {
	for i := range h.n {
		h.connected[i] = false
	}
	for _, i := range servers {
		h.connected[i] = true
	}
	h.partition()
}

// RPCTotal returns the number of RPCs sent so far.
func (h *Harness) RPCTotal() int { return h.c.Net().GetTotalCount() }

// RPCCount returns the number of RPCs server i's running incarnation has
// received.
func (h *Harness) RPCCount(i int) int { return h.c.RPCCount(0, i) }

// Bytes returns the bytes of RPC arguments sent so far.
func (h *Harness) Bytes() int64 { return h.c.Net().GetTotalBytes() }

// SetUnreliable makes the network drop and delay messages, or stop,
// through the monkey, so that the fault log shows it.
func (h *Harness) SetUnreliable(unrel bool) { h.Apply(fault.Fault{Kind: fault.Unreliable, On: unrel}) }

// SetLongReordering holds some replies back for long, or stops, through
// the monkey, so that the fault log shows it.
func (h *Harness) SetLongReordering(on bool) { h.Apply(fault.Fault{Kind: fault.Reordering, On: on}) }

// Sleep lets d of virtual time pass.
func (h *Harness) Sleep(d time.Duration) { h.w.Run(d) }

// RandInt draws from [0, n) with the world's generator, so tests replay
// from the seed.
func (h *Harness) RandInt(n int) int { return h.w.Rand().IntN(n) }

// RandCmd draws a command from the world's generator.
func (h *Harness) RandCmd() int { return h.w.Rand().Int() }

// LeadersAmong returns the live servers in group that think they lead.
func (h *Harness) LeadersAmong(group []int) []int {
	var ls []int
	for _, i := range group {
		if rf := h.Node(i); rf != nil {
			if _, isLeader := rf.GetState(); isLeader {
				ls = append(ls, i)
			}
		}
	}
	return ls
}

// All returns every server.
func (h *Harness) All() []int { return h.c.All(0) }

// CheckOneLeader checks that exactly one connected server leads the latest
// term that has a leader, and returns it.
func (h *Harness) CheckOneLeader() int {
	h.t.Helper()
	for range 10 {
		h.Sleep(450*time.Millisecond + time.Duration(h.RandInt(100))*time.Millisecond)
		leaders := map[int][]int{}
		for i := range h.n {
			if rf := h.Node(i); h.connected[i] && rf != nil {
				if term, isLeader := rf.GetState(); isLeader {
					leaders[term] = append(leaders[term], i)
				}
			}
		}
		terms := slices.Sorted(maps.Keys(leaders))
		for _, term := range terms {
			if len(leaders[term]) > 1 {
				h.t.Fatalf("term %d has %d (>1) leaders", term, len(leaders[term]))
			}
		}
		if len(terms) != 0 {
			return leaders[terms[len(terms)-1]][0]
		}
	}
	h.t.Fatalf("expected one leader, got none")
	return -1
}

// CheckTerms checks that every connected server has the same term, and
// returns it.
func (h *Harness) CheckTerms() int {
	h.t.Helper()
	term := -1
	for i := range h.n {
		if rf := h.Node(i); h.connected[i] && rf != nil {
			xterm, _ := rf.GetState()
			if term == -1 {
				term = xterm
			} else if term != xterm {
				h.t.Fatalf("servers disagree on term")
			}
		}
	}
	return term
}

// CheckNoLeader checks that no connected server thinks it is the leader.
func (h *Harness) CheckNoLeader() {
	h.t.Helper()
	for i := range h.n {
		if rf := h.Node(i); h.connected[i] && rf != nil {
			if _, isLeader := rf.GetState(); isLeader {
				h.t.Fatalf("expected no leader among connected servers, but %d claims to be leader", i)
			}
		}
	}
}

// Logs returns what the servers applied, as the harness checks it.
func (h *Harness) Logs() *Logs { return h.logs }

// Applied returns what server i applied at index, if it did.
func (h *Harness) Applied(i, index int) (any, bool) { return h.logs.Applied(i, index) }

// LastApplied returns the last index server i applied.
func (h *Harness) LastApplied(i int) int { return h.logs.LastApplied(i) }

// NCommitted returns how many servers have applied index, and the command.
func (h *Harness) NCommitted(index int) (int, any) {
	count, cmd, err := h.logs.Committed(index)
	if err != nil {
		h.t.Fatalf("%v", err)
	}
	return count, cmd
}

// Wait waits for at least n servers to commit index, giving up (and
// returning -1) if a server moves past startTerm. It fails if too few do.
func (h *Harness) Wait(index, n, startTerm int) any {
	h.t.Helper()
	to := 10 * time.Millisecond
	for range 30 {
		if nd, _ := h.NCommitted(index); nd >= n {
			break
		}
		h.Sleep(to)
		if to < time.Second {
			to *= 2
		}
		if startTerm > -1 {
			for i := range h.n {
				if rf := h.Node(i); rf != nil {
					if t, _ := rf.GetState(); t > startTerm {
						return -1
					}
				}
			}
		}
	}
	nd, cmd := h.NCommitted(index)
	if nd < n {
		h.t.Fatalf("only %d decided for index %d; wanted %d", nd, index, n)
	}
	return cmd
}

// startOnLeader offers cmd to each connected server in turn, from the one
// after *next, and returns the index a leader put it at, or -1.
func (h *Harness) startOnLeader(cmd any, next *int) int {
	for range h.n {
		*next = (*next + 1) % h.n
		if rf := h.Node(*next); h.connected[*next] && rf != nil {
			if index, _, ok := rf.Start(cmd); ok {
				return index
			}
		}
	}
	return -1
}

// committedAt reports whether at least n servers applied cmd at index.
func (h *Harness) committedAt(index, n int, cmd any) bool {
	nd, cmd1 := h.NCommitted(index)
	return nd > 0 && nd >= n && cmd1 == cmd
}

// One submits cmd to whichever server is leader and waits until
// expectedServers have committed it, retrying (if retry) for up to 10
// seconds. It returns the index the command was committed at.
func (h *Harness) One(cmd any, expectedServers int, retry bool) int {
	h.t.Helper()
	deadline := h.w.Now() + 10*time.Second
	next := 0
	for h.w.Now() < deadline {
		index := h.startOnLeader(cmd, &next)
		if index == -1 {
			h.Sleep(50 * time.Millisecond)
			continue
		}
		if h.w.RunUntil(func() bool { return h.committedAt(index, expectedServers, cmd) }, 2*time.Second) {
			return index
		}
		if !retry {
			h.t.Fatalf("one(%v) failed to reach agreement", short(cmd))
		}
	}
	h.t.Fatalf("one(%v) failed to reach agreement", short(cmd))
	return -1
}

// An Async is a command that a client inside the world gets committed,
// the way One does, while the test goes on: the lab's tests do this from
// goroutines.
type Async struct {
	cmd          any
	done, failed bool
}

// OneAsync starts a client that gets cmd committed by expectedServers,
// retrying for up to 10 seconds.
func (h *Harness) OneAsync(cmd any, expectedServers int) *Async {
	a := &Async{cmd: cmd}
	up := func(i int) raftapi.Raft {
		if h.connected[i] {
			return h.Node(i)
		}
		return nil
	}
	Commit(h.w, h.logs, up, cmd, expectedServers, h.w.Now()+10*time.Second, func(ok bool) { a.done, a.failed = ok, !ok })
	return a
}

// WaitAsync runs the world until every client is done, failing if one
// gave up.
func (h *Harness) WaitAsync(as []*Async) {
	h.t.Helper()
	finished := func() bool {
		for _, a := range as {
			if !a.done && !a.failed {
				return false
			}
		}
		return true
	}
	h.w.RunUntil(finished, time.Minute)
	for _, a := range as {
		if !a.done {
			h.t.Fatalf("one(%v) failed to reach agreement", short(a.cmd))
		}
	}
}

// Begin logs the description of a test.
func (h *Harness) Begin(description string) { h.t.Logf("%s ...", description) }

// Result is the run's summary for simtest.
func (h *Harness) Result() simtest.Result {
	return simtest.Result{World: h.w, Hosts: h.n, RPCs: h.RPCTotal(), Bytes: h.Bytes(), Ops: h.logs.MaxIndex()}
}

// LogSize returns the largest persisted Raft state of any server.
func (h *Harness) LogSize() int {
	size, _ := h.c.Sizes(0)
	return size
}

// describe summarises the cluster's state, printed when a test fails.
func (h *Harness) describe() string {
	var b strings.Builder
	for i := range h.n {
		rf := h.Node(i)
		if rf == nil {
			fmt.Fprintf(&b, "server %d: crashed\n", i)
			continue
		}
		term, isLeader := rf.GetState()
		fmt.Fprintf(&b, "server %d: term %d leader %v connected %v applied %d\n", i, term, isLeader, h.connected[i], h.logs.LastApplied(i))
	}
	return b.String()
}
