package kvraft

// The test harness: a config, as in the 6.5840 lab, that builds a
// replicated service on a simulated world, runs clerks as processes inside
// it, records every operation with virtual call and return times, and
// checks the history with porcupine at the end.

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/replab/replab/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/linearize"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/simtest"
)

// electionTimeout is the lab's bound on how long an election may take.
const electionTimeout = 1 * time.Second

// linearizabilityCheckTimeout bounds porcupine's (wall-clock) check.
const linearizabilityCheckTimeout = 10 * time.Second

type config struct {
	*Cluster
	t      simtest.T
	name   string
	w      *sim.World
	net    *labrpc.Network
	n      int
	opts   Options
	clerks []*clerk

	htmlDir string // where a violation's visualization goes ("": nowhere)

	history linearize.History
	faults  fault.Log
	ops     int
}

// makeConfig builds n servers on a fresh world for seed, all connected.
func makeConfig(t simtest.T, seed int64, n int, unreliable bool, maxraftstate int, opts Options) *config {
	t.Helper()
	w := sim.NewWorld(seed)
	tb, isTB := t.(testing.TB)
	if isTB {
		w = simtest.NewWorld(tb, seed)
	}
	c, err := NewCluster(w, n, maxraftstate, opts)
	if err != nil {
		t.Fatalf("%v", err)
	}
	cfg := &config{Cluster: c, t: t, w: w, net: c.Net(), n: n, opts: opts}
	c.OnFault = func(d string) { cfg.fault("%s", d) }
	if isTB {
		// A bug hunt expects violations and draws none; a test draws
		// its violation where SIM_TRACE says, or in the temporary
		// directory.
		cfg.name = tb.Name()
		cfg.htmlDir = os.Getenv("SIM_TRACE")
		if cfg.htmlDir == "" {
			cfg.htmlDir = filepath.Join(os.TempDir(), "replab-porcupine")
		}
		simtest.Explain(tb, "fault log", cfg.faultLog)
	}
	cfg.net.Reliable(!unreliable)
	return cfg
}

func (cfg *config) fault(format string, args ...any) {
	cfg.faults = append(cfg.faults, fault.Entry{At: cfg.w.Now(), Text: fmt.Sprintf(format, args...)})
}

func (cfg *config) faultLog() string { return cfg.faults.String() }

// StartServer starts or restarts server i from what its host persisted.
func (cfg *config) StartServer(i int) {
	if err := cfg.Start(i); err != nil {
		cfg.t.Fatalf("StartKVServer: %v", err)
	}
}

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
func (cfg *config) linearizability() linearize.Report {
	cfg.t.Helper()
	name := fmt.Sprintf("%s-seed%d", cfg.name, cfg.w.Seed())
	r, err := linearize.Check(linearize.KVModel(), cfg.history.Operations(), cfg.faults, linearizabilityCheckTimeout, cfg.htmlDir, name)
	if err != nil {
		cfg.t.Fatalf("writing the visualization: %v", err)
	}
	return r
}

// result is the run's summary for simtest.
func (cfg *config) result() simtest.Result {
	return simtest.Result{World: cfg.w, Hosts: len(cfg.w.Hosts()), RPCs: cfg.net.GetTotalCount(), Bytes: cfg.net.GetTotalBytes(), Ops: cfg.history.Len()}
}
