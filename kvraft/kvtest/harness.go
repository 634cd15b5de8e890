package kvtest

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

// ElectionTimeout is the lab's bound on how long an election may take.
const ElectionTimeout = 1 * time.Second

// OpLimit bounds how long a blocking operation of a test may take.
const OpLimit = 2 * time.Minute

// linearizabilityCheckTimeout bounds porcupine's (wall-clock) check.
const linearizabilityCheckTimeout = 10 * time.Second

// A Harness is the lab's test configuration on the cluster harness: n
// servers of the service under test on a simulated world, clerks as
// processes inside it, every operation recorded with its virtual call and
// return times, and a porcupine check of the history at the end. Every
// partition, crash and restart goes through the cluster's monkey and shows
// in its fault log.
type Harness struct {
	c       *cluster.Cluster
	t       simtest.T
	name    string
	w       *sim.World
	n       int
	svc     Service
	clients []*Client

	htmlDir string // where a violation's visualization goes ("": nowhere)

	history linearize.History
	notes   fault.Log // what the test did outside the monkey
}

// New builds n servers of svc on a fresh world for seed, all connected,
// snapshotting at maxraftstate bytes (-1: never).
func New(t simtest.T, seed int64, n int, unreliable bool, maxraftstate int, svc Service) *Harness {
	t.Helper()
	w := sim.NewWorld(seed)
	tb, isTB := t.(testing.TB)
	if isTB {
		w = simtest.NewWorld(tb, seed)
	}
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: n, Factory: svc.factory(maxraftstate)}}})
	if err != nil {
		t.Fatalf("%v", err)
	}
	h := &Harness{c: c, t: t, w: w, n: n, svc: svc}
	if isTB {
		// A bug hunt expects violations and draws none; a test draws
		// its violation where SIM_TRACE says, or in the temporary
		// directory.
		h.name = tb.Name()
		h.htmlDir = os.Getenv("SIM_TRACE")
		if h.htmlDir == "" {
			h.htmlDir = filepath.Join(os.TempDir(), "replab-porcupine")
		}
		simtest.Explain(tb, "fault log", func() string { return h.FaultLog().String() })
	}
	h.Apply(fault.Fault{Kind: fault.Unreliable, On: unreliable})
	return h
}

// Note notes, in the fault log, something the test did outside the monkey.
func (h *Harness) Note(format string, args ...any) {
	h.notes = append(h.notes, fault.Event{At: h.w.Now(), Fault: fault.Fault{Kind: fault.Note}, Text: fmt.Sprintf(format, args...)})
}

// FaultLog returns the monkey's log and the test's notes, in time order.
func (h *Harness) FaultLog() fault.Log {
	log := append(slices.Clone(h.c.Log()), h.notes...)
	slices.SortStableFunc(log, func(a, b fault.Event) int { return cmp.Compare(a.At, b.At) })
	return log
}

// Apply applies a fault through the monkey, failing the test if it is
// malformed. Servers are named by index.
func (h *Harness) Apply(f fault.Fault) {
	h.t.Helper()
	if err := h.c.Apply(f); err != nil {
		h.t.Fatalf("%v", err)
	}
}

// Partition puts the servers in groups; servers in different groups (or
// in none) cannot talk to each other. Clients keep their connections.
func (h *Harness) Partition(groups ...[]int) {
	h.Apply(fault.Fault{Kind: fault.Partition, Groups: groups})
}

// ConnectAll heals every partition.
func (h *Harness) ConnectAll() { h.Apply(fault.Fault{Kind: fault.Heal}) }

// Shutdown kills server i: only what it persisted survives.
func (h *Harness) Shutdown(i int) { h.Apply(fault.Fault{Kind: fault.Kill, Host: i}) }

// StartServer restarts server i from what it persisted.
func (h *Harness) StartServer(i int) { h.Apply(fault.Fault{Kind: fault.Restart, Host: i}) }

// All returns every server.
func (h *Harness) All() []int { return h.c.All(0) }

// N returns the number of servers.
func (h *Harness) N() int { return h.n }

// Leader returns a live server that thinks it leads, if there is one.
func (h *Harness) Leader() (int, bool) { return h.c.Leader(0) }

// Server returns server i, or nil while it is down.
func (h *Harness) Server(i int) Server {
	if r := h.c.Replica(0, i); r != nil {
		return r.(replica).Server
	}
	return nil
}

// Hosts returns the servers' hosts.
func (h *Harness) Hosts() []*sim.Host { return h.c.Hosts() }

// World returns the harness's world.
func (h *Harness) World() *sim.World { return h.w }

// Net returns the network.
func (h *Harness) Net() *labrpc.Network { return h.c.Net() }

// Cluster returns the cluster the servers run on.
func (h *Harness) Cluster() *cluster.Cluster { return h.c }

// Service returns the service under test.
func (h *Harness) Service() Service { return h.svc }

// History returns the history of every client's operations.
func (h *Harness) History() *linearize.History { return &h.history }

// Clients returns the clients made so far.
func (h *Harness) Clients() []*Client { return h.clients }

// LogSize returns the largest persisted Raft state of any server.
func (h *Harness) LogSize() int {
	size, _ := h.c.Sizes(0)
	return size
}

// SnapshotSize returns the largest persisted snapshot of any server.
func (h *Harness) SnapshotSize() int {
	_, size := h.c.Sizes(0)
	return size
}

// MakePartition returns a majority that holds the leader, and the rest.
func (h *Harness) MakePartition() ([]int, []int) {
	l, _ := h.Leader()
	p1 := []int{l}
	var p2 []int
	for i := 1; i < h.n; i++ {
		if j := (l + i) % h.n; i <= h.n/2 {
			p1 = append(p1, j)
		} else {
			p2 = append(p2, j)
		}
	}
	return p1, p2
}

// Sleep lets d of virtual time pass.
func (h *Harness) Sleep(d time.Duration) { h.w.Run(d) }

// RandInt draws from [0, n) with the world's generator.
func (h *Harness) RandInt(n int) int { return h.w.Rand().IntN(n) }

// SetHTMLDir sets where a violation's visualization goes ("": nowhere).
func (h *Harness) SetHTMLDir(dir string) { h.htmlDir = dir }

// CheckLinearizable checks the whole history with porcupine, failing the
// test on a violation (with the path of the visualization) or a timeout.
func (h *Harness) CheckLinearizable() {
	h.t.Helper()
	if r := h.Linearizability(); !r.OK() {
		h.t.Fatalf("%s", r.Problem())
	}
}

// Linearizability checks the whole history with porcupine, drawing a
// violation in the visualization directory.
func (h *Harness) Linearizability() linearize.Result {
	h.t.Helper()
	name := fmt.Sprintf("%s-seed%d", h.name, h.w.Seed())
	r, err := linearize.Check(linearize.KVModel(), h.history.Operations(), h.FaultLog(), linearizabilityCheckTimeout, h.htmlDir, name)
	if err != nil {
		h.t.Fatalf("writing the visualization: %v", err)
	}
	return r
}

// Result is the run's summary for simtest.
func (h *Harness) Result() simtest.Result {
	return simtest.Result{World: h.w, Hosts: len(h.w.Hosts()), RPCs: h.c.Net().GetTotalCount(), Bytes: h.c.Net().GetTotalBytes(), Ops: h.history.Len()}
}
