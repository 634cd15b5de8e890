package kvraft

// The test harness: a config, as in the 6.5840 lab, that builds a
// replicated service on a simulated world, runs clerks as processes inside
// it, records every operation with virtual call and return times, and
// checks the history with porcupine at the end.

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/internal/linearize"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/simtest"
)

// electionTimeout is the lab's bound on how long an election may take.
const electionTimeout = 1 * time.Second

// linearizabilityCheckTimeout bounds porcupine's (wall-clock) check.
const linearizabilityCheckTimeout = 10 * time.Second

type config struct {
	t            simtest.T
	name         string
	w            *sim.World
	net          *labrpc.Network
	n            int
	opts         Options
	maxraftstate int
	hosts        []*sim.Host
	kvservers    []*KVServer
	endnames     [][]string // endnames[i][j]: server i's end to server j
	groups       []int      // the partition each server is in
	clerks       []*clerk
	ends         int

	history linearize.History
	faults  []linearize.Fault
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
	cfg := &config{
		t: t, w: w, net: labrpc.MakeNetwork(w), n: n, opts: opts, maxraftstate: maxraftstate,
		kvservers: make([]*KVServer, n), endnames: make([][]string, n), groups: make([]int, n),
	}
	if isTB {
		cfg.name = tb.Name()
		simtest.Explain(tb, "fault log", cfg.faultLog)
	}
	hosts, err := w.NewHosts(n, "kv")
	if err != nil {
		t.Fatalf("%v", err)
	}
	cfg.hosts = hosts
	cfg.net.Reliable(!unreliable)
	for i := range n {
		cfg.StartServer(i)
	}
	cfg.ConnectAll()
	return cfg
}

func (cfg *config) fault(format string, args ...any) {
	cfg.faults = append(cfg.faults, linearize.Fault{At: cfg.w.Now(), Description: fmt.Sprintf(format, args...)})
}

func (cfg *config) faultLog() string {
	var b strings.Builder
	for _, f := range cfg.faults {
		fmt.Fprintf(&b, "%12v  %s\n", f.At, f.Description)
	}
	return b.String()
}

// StartServer starts or restarts server i from what its host persisted,
// with fresh ends to the other servers.
func (cfg *config) StartServer(i int) {
	cfg.ShutdownServer(i)
	cfg.hosts[i].Restart()
	cfg.endnames[i] = make([]string, cfg.n)
	ends := make([]*labrpc.ClientEnd, cfg.n)
	for j := range cfg.n {
		cfg.ends++
		cfg.endnames[i][j] = fmt.Sprintf("end%d:%d->%d", cfg.ends, i, j)
		ends[j] = cfg.net.MakeEnd(cfg.endnames[i][j], cfg.hosts[i])
		cfg.net.Connect(cfg.endnames[i][j], j)
	}
	kv, err := StartKVServer(cfg.hosts[i], ends, i, cfg.hosts[i].Persister(), cfg.maxraftstate, cfg.opts)
	if err != nil {
		cfg.t.Fatalf("StartKVServer: %v", err)
	}
	cfg.kvservers[i] = kv
	srv := labrpc.MakeServer(cfg.hosts[i])
	srv.AddService(labrpc.MakeService(kv))
	srv.AddService(labrpc.MakeService(kv.Raft()))
	cfg.net.AddServer(i, srv)
	cfg.connectServer(i)
}

// ShutdownServer kills server i: only what it persisted survives.
func (cfg *config) ShutdownServer(i int) {
	if cfg.kvservers[i] == nil {
		return
	}
	cfg.fault("kill server %d", i)
	cfg.net.DeleteServer(i)
	cfg.kvservers[i].Kill()
	cfg.kvservers[i] = nil
	cfg.hosts[i].Kill()
}

// partition puts the servers in groups; servers in different groups
// cannot talk. Clerks stay connected to every server.
func (cfg *config) partition(groups ...[]int) {
	for g, servers := range groups {
		for _, i := range servers {
			cfg.groups[i] = g
		}
	}
	if len(groups) > 1 {
		cfg.fault("partition %v", groups)
	} else {
		cfg.fault("heal")
	}
	for i := range cfg.n {
		cfg.connectServer(i)
	}
}

// ConnectAll heals every partition.
func (cfg *config) ConnectAll() { cfg.partition(cfg.All()) }

// connectServer enables server i's ends to the servers in its group.
func (cfg *config) connectServer(i int) {
	if cfg.endnames[i] == nil {
		return
	}
	for j := range cfg.n {
		cfg.net.Enable(cfg.endnames[i][j], cfg.groups[i] == cfg.groups[j])
	}
}

// All returns every server index.
func (cfg *config) All() []int {
	all := make([]int, cfg.n)
	for i := range all {
		all[i] = i
	}
	return all
}

// Leader returns a server that thinks it leads, if any.
func (cfg *config) Leader() (bool, int) {
	for i, kv := range cfg.kvservers {
		if kv != nil {
			if _, isLeader := kv.Raft().GetState(); isLeader {
				return true, i
			}
		}
	}
	return false, 0
}

// makePartition returns a majority that holds the leader, and the rest.
func (cfg *config) makePartition() ([]int, []int) {
	_, l := cfg.Leader()
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

// LogSize is the largest persisted Raft state of any server.
func (cfg *config) LogSize() int {
	size := 0
	for _, h := range cfg.hosts {
		size = max(size, h.Persister().RaftStateSize())
	}
	return size
}

// SnapshotSize is the largest persisted snapshot of any server.
func (cfg *config) SnapshotSize() int {
	size := 0
	for _, h := range cfg.hosts {
		size = max(size, h.Persister().SnapshotSize())
	}
	return size
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

// linearizability checks the whole history with porcupine. A violation's
// visualization goes to $SIM_TRACE, or else the temporary directory.
func (cfg *config) linearizability() linearize.Report {
	cfg.t.Helper()
	name := fmt.Sprintf("%s-seed%d", cfg.name, cfg.w.Seed())
	r, err := linearize.Check(linearize.KVModel(), cfg.history.Operations(), cfg.faults, linearizabilityCheckTimeout, os.Getenv("SIM_TRACE"), name)
	if err != nil {
		cfg.t.Fatalf("writing the visualization: %v", err)
	}
	return r
}

// result is the run's summary for simtest.
func (cfg *config) result() simtest.Result {
	return simtest.Result{World: cfg.w, Hosts: len(cfg.w.Hosts()), RPCs: cfg.net.GetTotalCount(), Bytes: cfg.net.GetTotalBytes(), Ops: cfg.history.Len()}
}
