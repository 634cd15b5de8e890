package raft

// The test harness: a config, as in the 6.5840 lab, that builds a cluster
// on a simulated world and checks it, driving virtual time instead of
// sleeping.

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/simtest"
)

// RaftElectionTimeout is the lab's bound on how long an election may take.
const RaftElectionTimeout = 1000 * time.Millisecond

// SnapShotInterval is how many entries the snapshotting applier applies
// between snapshots.
const SnapShotInterval = 10

type config struct {
	t         simtest.T
	w         *sim.World
	net       *labrpc.Network
	n         int
	rcfg      Config
	hosts     []*sim.Host
	rafts     []*Raft
	connected []bool
	endnames  [][]string
	ends      int // makes end names unique
	snapshot  bool

	logs        []map[int]any // what each server has applied, by index
	lastApplied []int
	maxIndex    int
	maxIndex0   int

	t0           time.Duration
	rpcs0, cmds0 int
	bytes0       int64
	cmds         int
}

// makeConfig builds a cluster of n nodes on a fresh world for seed, all
// connected.
func makeConfig(t simtest.T, seed int64, n int, unreliable, snapshot bool, rcfg Config) *config {
	t.Helper()
	w := sim.NewWorld(seed)
	tb, isTB := t.(testing.TB)
	if isTB {
		w = simtest.NewWorld(tb, seed) // honours -simtrace
	}
	cfg := &config{
		t: t, w: w, net: labrpc.MakeNetwork(w), n: n, rcfg: rcfg, snapshot: snapshot,
		rafts: make([]*Raft, n), connected: make([]bool, n), endnames: make([][]string, n),
		logs: make([]map[int]any, n), lastApplied: make([]int, n),
	}
	hosts, err := w.NewHosts(n, "raft")
	if err != nil {
		t.Fatalf("%v", err)
	}
	cfg.hosts = hosts
	if isTB {
		simtest.Explain(tb, "cluster state", cfg.describe)
	}
	cfg.net.Reliable(!unreliable)
	for i := range n {
		cfg.logs[i] = map[int]any{}
		cfg.start1(i)
	}
	for i := range n {
		cfg.connect(i)
	}
	return cfg
}

// crash1 kills server i: its host dies (timers, pending events and
// in-memory state gone) and only what it persisted survives.
func (cfg *config) crash1(i int) {
	cfg.disconnect(i)
	cfg.net.DeleteServer(i)
	if cfg.rafts[i] != nil {
		cfg.rafts[i].Kill()
		cfg.rafts[i] = nil
	}
	cfg.hosts[i].Kill()
}

// start1 starts or restarts server i from what its host persisted, with
// fresh ends so that nothing the old incarnation sent is answered to it.
func (cfg *config) start1(i int) {
	cfg.crash1(i)
	cfg.hosts[i].Restart()
	cfg.endnames[i] = make([]string, cfg.n)
	ends := make([]*labrpc.ClientEnd, cfg.n)
	for j := range cfg.n {
		cfg.ends++
		cfg.endnames[i][j] = fmt.Sprintf("end%d:%d->%d", cfg.ends, i, j)
		ends[j] = cfg.net.MakeEnd(cfg.endnames[i][j], cfg.hosts[i])
		cfg.net.Connect(cfg.endnames[i][j], j)
	}
	ps := cfg.hosts[i].Persister()
	cfg.lastApplied[i] = 0
	if snap := ps.ReadSnapshot(); cfg.snapshot && len(snap) > 0 {
		if err := cfg.ingestSnap(i, snap, -1); err != "" {
			cfg.t.Fatalf("%s", err)
		}
	}
	apply := func(m ApplyMsg) { cfg.applier(i, m) }
	rf, err := Make(cfg.hosts[i], ends, i, ps, apply, cfg.rcfg)
	if err != nil {
		cfg.t.Fatalf("Make: %v", err)
	}
	cfg.rafts[i] = rf
	srv := labrpc.MakeServer(cfg.hosts[i])
	srv.AddService(rf.Service())
	cfg.net.AddServer(i, srv)
}

// applier checks each committed command against what the other servers
// applied at that index, and that it comes in order. With snapshots on, it
// also ingests snapshots and asks for one every SnapShotInterval entries.
func (cfg *config) applier(i int, m ApplyMsg) {
	if m.SnapshotValid {
		if !cfg.snapshot {
			cfg.t.Fatalf("server %d got a snapshot although the test takes none", i)
		}
		if err := cfg.ingestSnap(i, m.Snapshot, m.SnapshotIndex); err != "" {
			cfg.t.Fatalf("%s", err)
		}
		return
	}
	if !m.CommandValid {
		cfg.t.Fatalf("server %d: apply message with neither a command nor a snapshot", i)
	}
	if m.CommandIndex != cfg.lastApplied[i]+1 {
		cfg.t.Fatalf("server %d apply out of order: expected index %d, got %d", i, cfg.lastApplied[i]+1, m.CommandIndex)
	}
	if err := cfg.checkLogs(i, m); err != "" {
		cfg.t.Fatalf("apply error: %s", err)
	}
	cfg.lastApplied[i] = m.CommandIndex
	if cfg.snapshot && m.CommandIndex%SnapShotInterval == 0 {
		cfg.rafts[i].Snapshot(m.CommandIndex, cfg.encodeSnap(i, m.CommandIndex))
	}
}

// checkLogs records server i's command at m's index, failing if another
// server applied something else there.
func (cfg *config) checkLogs(i int, m ApplyMsg) string {
	for j := range cfg.logs {
		if old, ok := cfg.logs[j][m.CommandIndex]; ok && old != m.Command {
			return fmt.Sprintf("commit index=%d server=%d %v != server=%d %v", m.CommandIndex, i, m.Command, j, old)
		}
	}
	_, prevOK := cfg.logs[i][m.CommandIndex-1]
	cfg.logs[i][m.CommandIndex] = m.Command
	cfg.maxIndex = max(cfg.maxIndex, m.CommandIndex)
	if m.CommandIndex > 1 && !prevOK && cfg.lastApplied[i] != m.CommandIndex-1 {
		return fmt.Sprintf("server %d apply out of order %d", i, m.CommandIndex)
	}
	return ""
}

// encodeSnap is the snapshot of server i's applied commands up to index.
func (cfg *config) encodeSnap(i, index int) []byte {
	b := binary.AppendUvarint(nil, uint64(index))
	for j := 0; j <= index; j++ {
		b = encodeCommand(b, cfg.logs[i][j], nil)
	}
	return b
}

// ingestSnap loads a snapshot into server i's applied log.
func (cfg *config) ingestSnap(i int, snap []byte, index int) string {
	last, b, err := uvarint(snap)
	if err != nil {
		return "snapshot decode error: " + err.Error()
	}
	if index != -1 && index != int(last) {
		return fmt.Sprintf("server %d snapshot doesn't match SnapshotIndex: %d != %d", i, last, index)
	}
	cfg.logs[i] = map[int]any{}
	for j := 0; j <= int(last); j++ {
		var cmd any
		if cmd, b, err = decodeCommand(b, nil); err != nil {
			return "snapshot decode error: " + err.Error()
		}
		if j > 0 {
			cfg.logs[i][j] = cmd
		}
	}
	cfg.lastApplied[i] = int(last)
	return ""
}

// connect attaches server i to the net: its outgoing ends and the ends of
// connected servers towards it come up.
func (cfg *config) connect(i int) { cfg.setConnected(i, true) }

// disconnect detaches server i from the net.
func (cfg *config) disconnect(i int) { cfg.setConnected(i, false) }

func (cfg *config) setConnected(i int, up bool) {
	cfg.connected[i] = up
	for j := range cfg.n {
		if cfg.endnames[i] != nil && (!up || cfg.connected[j]) {
			cfg.net.Enable(cfg.endnames[i][j], up)
		}
		if cfg.endnames[j] != nil && (!up || cfg.connected[j]) {
			cfg.net.Enable(cfg.endnames[j][i], up)
		}
	}
}

func (cfg *config) rpcTotal() int { return cfg.net.GetTotalCount() }

func (cfg *config) setunreliable(unrel bool) { cfg.net.Reliable(!unrel) }

func (cfg *config) setlongreordering(on bool) { cfg.net.LongReordering(on) }

// sleep lets d of virtual time pass.
func (cfg *config) sleep(d time.Duration) { cfg.w.Run(d) }

// randInt draws from the world's generator, so tests replay from the seed.
func (cfg *config) randInt(n int) int { return cfg.w.Rand().IntN(n) }

// checkOneLeader checks that exactly one connected server leads the latest
// term that has a leader, and returns it.
func (cfg *config) checkOneLeader() int {
	cfg.t.Helper()
	for range 10 {
		cfg.sleep(450*time.Millisecond + time.Duration(cfg.randInt(100))*time.Millisecond)
		leaders := map[int][]int{}
		for i := range cfg.n {
			if cfg.connected[i] && cfg.rafts[i] != nil {
				if term, isLeader := cfg.rafts[i].GetState(); isLeader {
					leaders[term] = append(leaders[term], i)
				}
			}
		}
		terms := slices.Sorted(maps.Keys(leaders))
		for _, term := range terms {
			if len(leaders[term]) > 1 {
				cfg.t.Fatalf("term %d has %d (>1) leaders", term, len(leaders[term]))
			}
		}
		if len(terms) != 0 {
			return leaders[terms[len(terms)-1]][0]
		}
	}
	cfg.t.Fatalf("expected one leader, got none")
	return -1
}

// checkTerms checks that every connected server has the same term.
func (cfg *config) checkTerms() int {
	cfg.t.Helper()
	term := -1
	for i := range cfg.n {
		if cfg.connected[i] && cfg.rafts[i] != nil {
			xterm, _ := cfg.rafts[i].GetState()
			if term == -1 {
				term = xterm
			} else if term != xterm {
				cfg.t.Fatalf("servers disagree on term")
			}
		}
	}
	return term
}

// checkNoLeader checks that no connected server thinks it is the leader.
func (cfg *config) checkNoLeader() {
	cfg.t.Helper()
	for i := range cfg.n {
		if cfg.connected[i] && cfg.rafts[i] != nil {
			if _, isLeader := cfg.rafts[i].GetState(); isLeader {
				cfg.t.Fatalf("expected no leader among connected servers, but %d claims to be leader", i)
			}
		}
	}
}

// nCommitted returns how many servers have applied index, and the command.
func (cfg *config) nCommitted(index int) (int, any) {
	count := 0
	var cmd any
	for i := range cfg.n {
		if cmd1, ok := cfg.logs[i][index]; ok {
			if count > 0 && cmd != cmd1 {
				cfg.t.Fatalf("committed values do not match: index %d, %v, %v", index, cmd, cmd1)
			}
			count++
			cmd = cmd1
		}
	}
	return count, cmd
}

// wait waits for at least n servers to commit index, giving up (and
// returning -1) if a server moves past startTerm. It fails if too few do.
func (cfg *config) wait(index, n, startTerm int) any {
	cfg.t.Helper()
	to := 10 * time.Millisecond
	for range 30 {
		if nd, _ := cfg.nCommitted(index); nd >= n {
			break
		}
		cfg.sleep(to)
		if to < time.Second {
			to *= 2
		}
		if startTerm > -1 {
			for _, r := range cfg.rafts {
				if r != nil {
					if t, _ := r.GetState(); t > startTerm {
						return -1
					}
				}
			}
		}
	}
	nd, cmd := cfg.nCommitted(index)
	if nd < n {
		cfg.t.Fatalf("only %d decided for index %d; wanted %d", nd, index, n)
	}
	return cmd
}

// startOnLeader offers cmd to each connected server in turn, from the one
// after *next, and returns the index a leader put it at, or -1.
func (cfg *config) startOnLeader(cmd any, next *int) int {
	for range cfg.n {
		*next = (*next + 1) % cfg.n
		if cfg.connected[*next] && cfg.rafts[*next] != nil {
			if index, _, ok := cfg.rafts[*next].Start(cmd); ok {
				return index
			}
		}
	}
	return -1
}

// committedAt reports whether at least n servers applied cmd at index.
func (cfg *config) committedAt(index, n int, cmd any) bool {
	nd, cmd1 := cfg.nCommitted(index)
	return nd > 0 && nd >= n && cmd1 == cmd
}

// one submits cmd to whichever server is leader and waits until
// expectedServers have committed it, retrying for up to 10 seconds. It
// returns the index the command was committed at.
func (cfg *config) one(cmd any, expectedServers int, retry bool) int {
	cfg.t.Helper()
	deadline := cfg.w.Now() + 10*time.Second
	next := 0
	for cfg.w.Now() < deadline {
		index := cfg.startOnLeader(cmd, &next)
		if index == -1 {
			cfg.sleep(50 * time.Millisecond)
			continue
		}
		if cfg.w.RunUntil(func() bool { return cfg.committedAt(index, expectedServers, cmd) }, 2*time.Second) {
			cfg.cmds++
			return index
		}
		if !retry {
			cfg.t.Fatalf("one(%v) failed to reach agreement", cmd)
		}
	}
	cfg.t.Fatalf("one(%v) failed to reach agreement", cmd)
	return -1
}

// An asyncOne is a command that an in-world client submits the way one
// does, while the test goes on: the lab's tests do this from goroutines.
type asyncOne struct {
	cmd          any
	done, failed bool
}

// oneAsync starts a client that gets cmd committed by expectedServers,
// retrying for up to 10 seconds.
func (cfg *config) oneAsync(cmd any, expectedServers int) *asyncOne {
	a := &asyncOne{cmd: cmd}
	deadline := cfg.w.Now() + 10*time.Second
	next := 0
	var try func()
	try = func() {
		if cfg.w.Now() >= deadline {
			a.failed = true
			return
		}
		index := cfg.startOnLeader(cmd, &next)
		if index == -1 {
			cfg.w.After(50*time.Millisecond, try)
			return
		}
		started := cfg.w.Now()
		var poll func()
		poll = func() {
			switch {
			case cfg.committedAt(index, expectedServers, cmd):
				a.done = true
				cfg.cmds++
			case cfg.w.Now()-started >= 2*time.Second:
				try()
			default:
				cfg.w.After(20*time.Millisecond, poll)
			}
		}
		poll()
	}
	cfg.w.After(0, try)
	return a
}

// waitAsync runs the world until every client is done, failing if one
// gave up.
func (cfg *config) waitAsync(as []*asyncOne) {
	cfg.t.Helper()
	finished := func() bool {
		for _, a := range as {
			if !a.done && !a.failed {
				return false
			}
		}
		return true
	}
	cfg.w.RunUntil(finished, time.Minute)
	for _, a := range as {
		if !a.done {
			cfg.t.Fatalf("one(%v) failed to reach agreement", a.cmd)
		}
	}
}

// begin starts measuring a part of a test.
func (cfg *config) begin(description string) {
	cfg.t.Logf("%s ...", description)
	cfg.t0 = cfg.w.Now()
	cfg.rpcs0 = cfg.rpcTotal()
	cfg.bytes0 = cfg.net.GetTotalBytes()
	cfg.cmds0 = cfg.cmds
	cfg.maxIndex0 = cfg.maxIndex
}

// result is the run's summary for simtest.
func (cfg *config) result() simtest.Result {
	return simtest.Result{World: cfg.w, Hosts: cfg.n, RPCs: cfg.rpcTotal(), Bytes: cfg.net.GetTotalBytes(), Ops: cfg.maxIndex}
}

// LogSize is the largest persisted Raft state of any server.
func (cfg *config) LogSize() int {
	size := 0
	for _, h := range cfg.hosts {
		size = max(size, h.Persister().RaftStateSize())
	}
	return size
}

// describe summarises the cluster's state, printed when a test fails.
func (cfg *config) describe() string {
	var b strings.Builder
	for i, rf := range cfg.rafts {
		if rf == nil {
			fmt.Fprintf(&b, "server %d: dead\n", i)
			continue
		}
		term, isLeader := rf.GetState()
		fmt.Fprintf(&b, "server %d: term %d leader %v connected %v log %d..%d commit %d applied %d\n",
			i, term, isLeader, cfg.connected[i], rf.log.base, rf.log.last(), rf.commitIndex, rf.lastApplied)
	}
	return b.String()
}

// randCmd draws a command value from the world's generator.
func (cfg *config) randCmd() int { return cfg.w.Rand().Int() }
