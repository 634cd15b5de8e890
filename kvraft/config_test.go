package kvraft_test

// The test harness: a config, as in the 6.5840 lab, that builds a
// replicated service on a simulated world, runs clerks as processes inside
// it, records every operation with virtual call and return times, and
// checks the history with porcupine at the end.

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/replab/replab/cluster"
	"github.com/replab/replab/fault"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/linearize"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/simtest"
	"github.com/replab/replab/workload"
)

// electionTimeout is the lab's bound on how long an election may take.
const electionTimeout = 1 * time.Second

// linearizabilityCheckTimeout bounds porcupine's (wall-clock) check.
const linearizabilityCheckTimeout = 10 * time.Second

type config struct {
	c      *cluster.Cluster
	t      simtest.T
	name   string
	w      *sim.World
	net    *labrpc.Network
	n      int
	opts   kvraft.Options
	clerks []*clerk

	htmlDir string // where a violation's visualization goes ("": nowhere)

	history linearize.History
	notes   fault.Log // what the test did outside the monkey
	ops     int
}

// makeConfig builds n servers on a fresh world for seed, all connected.
func makeConfig(t simtest.T, seed int64, n int, unreliable bool, maxraftstate int, opts kvraft.Options) *config {
	t.Helper()
	w := sim.NewWorld(seed)
	tb, isTB := t.(testing.TB)
	if isTB {
		w = simtest.NewWorld(tb, seed)
	}
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: n, Factory: workload.KVServers(maxraftstate, opts)}}})
	if err != nil {
		t.Fatalf("%v", err)
	}
	cfg := &config{c: c, t: t, w: w, net: c.Net(), n: n, opts: opts}
	if isTB {
		// A bug hunt expects violations and draws none; a test draws
		// its violation where SIM_TRACE says, or in the temporary
		// directory.
		cfg.name = tb.Name()
		cfg.htmlDir = os.Getenv("SIM_TRACE")
		if cfg.htmlDir == "" {
			cfg.htmlDir = filepath.Join(os.TempDir(), "replab-porcupine")
		}
		simtest.Explain(tb, "fault log", func() string { return cfg.faultLog().String() })
	}
	cfg.net.Reliable(!unreliable)
	return cfg
}

// fault notes, in the fault log, something a test did outside the monkey.
func (cfg *config) fault(format string, args ...any) {
	cfg.notes = append(cfg.notes, fault.Event{At: cfg.w.Now(), Text: fmt.Sprintf(format, args...)})
}

// faultLog returns the monkey's log and the test's notes, in time order.
func (cfg *config) faultLog() fault.Log {
	log := append(slices.Clone(cfg.c.Log()), cfg.notes...)
	slices.SortStableFunc(log, func(a, b fault.Event) int { return cmp.Compare(a.At, b.At) })
	return log
}

// apply applies a fault through the monkey.
func (cfg *config) apply(f fault.Fault) {
	cfg.t.Helper()
	if err := cfg.c.Apply(f); err != nil {
		cfg.t.Fatalf("%v", err)
	}
}

// Partition puts the servers in groups; servers in different groups (or
// in none) cannot talk to each other. Clerks keep their connections.
func (cfg *config) Partition(groups ...[]int) {
	cfg.apply(fault.Fault{Kind: fault.Partition, Groups: groups})
}

// ConnectAll heals every partition.
func (cfg *config) ConnectAll() { cfg.apply(fault.Fault{Kind: fault.Heal}) }

// Shutdown kills server i: only what it persisted survives.
func (cfg *config) Shutdown(i int) { cfg.apply(fault.Fault{Kind: fault.Kill, Host: i}) }

// All returns every server.
func (cfg *config) All() []int { return cfg.c.All(0) }

// Leader returns a live server that thinks it leads, if there is one.
func (cfg *config) Leader() (int, bool) { return cfg.c.Leader(0) }

// hosts returns the servers' hosts.
func (cfg *config) hosts() []*sim.Host { return cfg.c.Hosts() }

// LogSize returns the largest persisted Raft state of any server.
func (cfg *config) LogSize() int {
	size := 0
	for i := range cfg.n {
		size = max(size, cfg.c.Persister(0, i).RaftStateSize())
	}
	return size
}

// SnapshotSize returns the largest persisted snapshot of any server.
func (cfg *config) SnapshotSize() int {
	size := 0
	for i := range cfg.n {
		size = max(size, cfg.c.Persister(0, i).SnapshotSize())
	}
	return size
}

// StartServer restarts server i from what its host persisted.
func (cfg *config) StartServer(i int) { cfg.apply(fault.Fault{Kind: fault.Restart, Host: i}) }

// makePartition returns a majority that holds the leader, and the rest.
func (cfg *config) makePartition() ([]int, []int) {
	l, _ := cfg.Leader()
	p1 := []int{l}
	var p2 []int
	for i := 1; i < cfg.n; i++ {
		if j := (l + i) % cfg.n; i <= cfg.n/2 {
			p1 = append(p1, j)
		} else {
			p2 = append(p2, j)
		}
	}
	return p1, p2
}

// sleep lets d of virtual time pass.
func (cfg *config) sleep(d time.Duration) { cfg.w.Run(d) }

func (cfg *config) randInt(n int) int { return cfg.w.Rand().IntN(n) }

// checkLinearizable checks the whole history with porcupine, failing the
// test on a violation (with the path of the visualization) or a timeout.
func (cfg *config) checkLinearizable() {
	cfg.t.Helper()
	if r := cfg.linearizability(); !r.OK() {
		cfg.t.Fatalf("%s", r.Problem())
	}
}

// linearizability checks the whole history with porcupine, drawing a
// violation in htmlDir.
func (cfg *config) linearizability() linearize.Result {
	cfg.t.Helper()
	name := fmt.Sprintf("%s-seed%d", cfg.name, cfg.w.Seed())
	r, err := linearize.Check(linearize.KVModel(), cfg.history.Operations(), cfg.faultLog(), linearizabilityCheckTimeout, cfg.htmlDir, name)
	if err != nil {
		cfg.t.Fatalf("writing the visualization: %v", err)
	}
	return r
}

// result is the run's summary for simtest.
func (cfg *config) result() simtest.Result {
	return simtest.Result{World: cfg.w, Hosts: len(cfg.w.Hosts()), RPCs: cfg.net.GetTotalCount(), Bytes: cfg.net.GetTotalBytes(), Ops: cfg.history.Len()}
}
