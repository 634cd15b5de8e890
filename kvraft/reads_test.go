package kvraft_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/fault"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/simtest"
)

// withReads returns sc run with the given read mode.
func withReads(mode rsm.ReadMode, sc scenario) scenario {
	return func(t simtest.T, seed int64, opts kvraft.Options) *config {
		opts.Reads = mode
		return sc(t, seed, opts)
	}
}

func TestReadIndexPartitions(t *testing.T) {
	runScenario(t, withReads(rsm.ReadIndex, generic(5, 5, true, true, true, -1, false)))
}

func TestLeaseReadPartitions(t *testing.T) {
	runScenario(t, withReads(rsm.ReadLease, generic(5, 5, true, true, true, -1, false)))
}

func TestLeaseReadsWithinDriftBound(t *testing.T) { runScenario(t, leaseReadsWithinDriftBound) }

// leaseReadsWithinDriftBound checks lease reads with clocks drifting as
// much as the leases allow for.
func leaseReadsWithinDriftBound(t simtest.T, seed int64, opts kvraft.Options) *config {
	cfg := leaseDrift(t, seed, opts, opts.Raft.LeaseDrift)
	cfg.checkLinearizable()
	return cfg
}

// TestLeaseReadsBeyondDriftBoundFail shows what the drift bound is for:
// with clocks drifting 30% where leases assume 5%, a deposed leader serves
// stale reads, and the checker must say so.
func TestLeaseReadsBeyondDriftBoundFail(t *testing.T) {
	runScenario(t, func(t simtest.T, seed int64, opts kvraft.Options) *config {
		cfg := leaseDrift(t, seed, opts, 0.30)
		if tb, ok := t.(testing.TB); ok {
			cfg.htmlDir = tb.TempDir() // the violation is expected: draw it, then throw it away
		}
		if r := cfg.linearizability(); r.Verdict != porcupine.Illegal {
			t.Fatalf("with 30%% drift and leases sized for %v%%, the history was %v; want a stale read caught", opts.Raft.LeaseDrift*100, r.Verdict)
		}
		return cfg
	})
}

// leaseDrift runs rounds in which the leader's clock runs slow and the
// others' fast by drift, then cuts the leader off with a clerk that keeps
// reading from it, while another clerk writes through the majority. If
// the leader's lease outlasts the majority's promise not to elect another
// leader, it serves stale reads.
func leaseDrift(t simtest.T, seed int64, opts kvraft.Options, drift float64) *config {
	opts.Reads = rsm.ReadLease
	const servers = 5
	cfg := makeConfig(t, seed, servers, false, -1, opts)
	ck := cfg.makeClient(cfg.All())
	for round := range 10 {
		for i := range servers {
			cfg.apply(fault.Fault{Kind: fault.Drift, Host: i, Rate: 1})
		}
		cfg.ConnectAll()
		ck.connect(cfg.All())
		ck.put("k", "round "+strconv.Itoa(round))
		leader, ok := cfg.Leader()
		if !ok {
			t.Fatalf("no leader")
		}
		for i := range servers {
			rate := 1 + drift
			if i == leader {
				rate = 1 - drift
			}
			cfg.apply(fault.Fault{Kind: fault.Drift, Host: i, Rate: rate})
		}
		ck.put("k", "before "+strconv.Itoa(round)) // a heartbeat round on the drifting clocks
		var rest []int
		for i := range servers {
			if i != leader {
				rest = append(rest, i)
			}
		}
		cfg.Partition([]int{leader}, rest)
		reader, writer := cfg.makeClient([]int{leader}), cfg.makeClient(rest)
		stop := false
		var read func()
		read = func() {
			if !stop {
				reader.getAsync("k", func(string) { cfg.w.After(time.Millisecond, read) })
			}
		}
		read()
		writer.Put("k", "after "+strconv.Itoa(round), func() {})
		cfg.sleep(time.Second)
		stop = true
	}
	cfg.ConnectAll()
	for _, ckk := range cfg.clerks {
		ckk.connect(cfg.All())
	}
	cfg.sleep(3 * time.Second) // let the last operations finish
	return cfg
}

func TestSnapshotKeepsDuplicateTable(t *testing.T) { runScenario(t, snapshotKeepsDuplicateTable) }

// snapshotKeepsDuplicateTable loses the replies to an append until after
// every server has snapshotted past it and restarted: the clerk's retry
// must then be recognised from the de-duplication table in the snapshot.
func snapshotKeepsDuplicateTable(t simtest.T, seed int64, opts kvraft.Options) *config {
	const maxraftstate = 500
	cfg := makeConfig(t, seed, 3, false, maxraftstate, opts)
	ck1, ck2 := cfg.makeClient(cfg.All()), cfg.makeClient(cfg.All())
	ck1.put("k", "")

	// Every server's answers to ck1 are lost; its append applies, and it
	// keeps retrying.
	for _, h := range cfg.hosts() {
		cfg.net.SetLink(h, ck1.Host(), false)
	}
	cfg.fault("replies to clerk %d lost", ck1.ID())
	done := false
	ck1.Append("k", "x", func() { done = true })
	// Enough other writes for every server to snapshot past the append.
	for i := range 40 {
		ck2.put(strconv.Itoa(i), strconv.Itoa(i))
	}
	for i := range cfg.n {
		cfg.Shutdown(i)
	}
	for i := range cfg.n {
		cfg.StartServer(i)
	}
	cfg.net.HealLinks()
	cfg.fault("replies to clerk %d flow again", ck1.ID())
	if !cfg.w.RunUntil(func() bool { return done }, opLimit) {
		t.Fatalf("the append never completed")
	}
	ck2.check("k", "x")
	cfg.checkLinearizable()
	return cfg
}

func TestLeaseReadsPreVoteRepliesDelayed(t *testing.T) {
	runScenario(t, leaseReadsPreVoteRepliesDelayed)
}

// leaseReadsPreVoteRepliesDelayed holds pre-vote replies back longer than
// a heartbeat and shorter than a lease. The servers away from the leader
// time out; as soon as the first of them asks for pre-votes it is bridged
// to the leader for a heartbeat, acknowledging its lease, then cut off
// again. When its pre-votes arrive it must not run an election: the nodes
// that granted them would elect it while the old leader still serves lease
// reads to a clerk that can reach only it.
func leaseReadsPreVoteRepliesDelayed(t simtest.T, seed int64, opts kvraft.Options) *config {
	opts.Reads = rsm.ReadLease
	const servers = 5
	cfg := makeConfig(t, seed, servers, false, -1, opts)
	m := cfg.c.Monkey()
	hb := opts.Raft.Heartbeat
	var asked = -1 // the first server to ask for pre-votes while cut off
	var near, far []int
	cfg.net.SetDelayRule(func(msg labrpc.Message) time.Duration {
		args, ok := msg.Args.(*raft.RequestVoteArgs)
		if !ok || !args.PreVote {
			return 0
		}
		if msg.IsReply {
			return 3 * hb / 2
		}
		if asked == -1 && far != nil && slices.Contains(far, args.CandidateID) {
			asked = args.CandidateID
			var rest []int
			for _, i := range far {
				if i != asked {
					rest = append(rest, i)
				}
			}
			bridge := fault.Fault{Kind: fault.Bridge, Host: asked, Groups: [][]int{near, rest}}
			split := fault.Fault{Kind: fault.Partition, Groups: [][]int{near, far}}
			if err := m.Schedule([]chaos.Step{{At: 0, Fault: bridge}, {At: 6 * hb / 5, Fault: split}}); err != nil {
				t.Fatalf("%v", err)
			}
		}
		return 0
	})
	ck := cfg.makeClient(cfg.All())
	for round := range 5 {
		ck.put("k", "round "+strconv.Itoa(round))
		leader, ok := cfg.Leader()
		if !ok {
			t.Fatalf("no leader")
		}
		near, far, asked = []int{leader, (leader + 1) % servers}, nil, -1
		for i := 2; i < servers; i++ {
			far = append(far, (leader+i)%servers)
		}
		reader, writer := cfg.makeClient([]int{leader}), cfg.makeClient(far)
		if err := m.Apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{near, far}}); err != nil {
			t.Fatalf("%v", err)
		}
		stop := false
		var read, write func()
		read = func() {
			if !stop {
				reader.getAsync("k", func(string) { cfg.w.After(time.Millisecond, read) })
			}
		}
		j := 0
		write = func() {
			if !stop {
				j++
				writer.Put("k", fmt.Sprintf("after %d.%d", round, j), func() { cfg.w.After(time.Millisecond, write) })
			}
		}
		read()
		write()
		cfg.sleep(3 * time.Second)
		stop = true
		if err := m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
			t.Fatalf("%v", err)
		}
		reader.connect(cfg.All())
		writer.connect(cfg.All())
		cfg.sleep(time.Second)
	}
	cfg.checkLinearizable()
	return cfg
}
