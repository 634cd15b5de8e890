package sweep

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvdeploy"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// The bounds of swarm-kv's drawn configurations.
const (
	// swarmKVOps bounds the operations a seed's clients can issue, and
	// swarmKVOpsPerKey those on one key (their count, the run's length
	// and their pauses are drawn within them), so that porcupine's check
	// of a key's history finishes.
	swarmKVOps, swarmKVOpsPerKey = 20_000, 1_500
	// swarmKVPerKey bounds the clients per key: porcupine's search grows
	// with how many operations on a key overlap.
	swarmKVPerKey = 4
	// swarmKVProgress is the progress bound after a heal: a few of the
	// lab's election timeouts, a clerk's retry after its 1 s timeout, and
	// the 2.2 s for which long reordering can hold back a reply sent
	// before the heal. (Long reordering and long delays are in force only
	// within bursts: with replies held back longer than an election
	// timeout, no leader can be elected, and the lab asks for progress
	// only once they are off.)
	swarmKVProgress = 10 * time.Second
	// swarmKVLease is the share of the seeds that read by lease.
	swarmKVLease = 0.5
	// swarmKVLeaseAimed is the share of the seeds that read by lease
	// whose nemesis is aimed at the leases.
	swarmKVLeaseAimed = 0.8
	// swarmKVAimed is the share of the other seeds whose nemesis is
	// aimed at Raft (Figure 8, or crashes after votes).
	swarmKVAimed = 0.4
	// swarmKVShortTimeouts is the share of the other seeds whose clerks
	// give up on a server sooner than rsm.DefaultTimeout.
	swarmKVShortTimeouts = 0.4
	// swarmKVAimedThink bounds the clients' pauses on a seed aimed at the
	// leases (unless swarmKVOps wants longer ones): a deposed leader's
	// stale lease lasts tens of milliseconds, and a write and a read
	// must both fall within it.
	swarmKVAimedThink = 40 * time.Millisecond
	// swarmKVEvents bounds a seed's events: ten times the most that any
	// of the first 1 000 seeds fired (292 323). A seed past it fails as a
	// storm.
	swarmKVEvents = 3_000_000
)

// swarmKV is the key/value swarm: each seed draws its own configuration.
type swarmKV struct {
	bug *Bug // planted in every seed's configuration, if set
}

// swarmKVScenario is the swarm as a scenario, with a bug planted on request.
func swarmKVScenario() Scenario {
	return swarmScenario("swarm-kv", "Key/value servers on Raft, the whole configuration drawn from the seed: 3-7 servers; 1-50 clients and 0-3 readers; 1-20 keys, the clients in groups of at most 4 on keys of their own (and a reader at most); the op mix (appends at most as often as reads); values of up to 4 KB; reads by lease on "+pct(swarmKVLease)+" of seeds (clocks drifting within the lease's bound), through the log or by ReadIndex on the others; snapshots at 1-64 KB of Raft state or never; the network's latency, jitter, loss, reordering, bandwidth (which bounds Raft's batches: its Bandwidth) and duplication; the clerks' timeout, "+rsm.DefaultTimeout.String()+" or, on "+pct(swarmKVShortTimeouts)+" of the seeds whose links are not bandwidth-bound, shorter (within an election timeout, at least eight of the network's longest ways); on "+pct(swarmKVLeaseAimed)+" of the seeds that read by lease a nemesis aimed at the leases (lease flickers, with an odd count of servers, or clocks skewed as far as leases allow with the leader cut off), on a LAN, with 1-3 readers, pauses of at most "+swarmKVAimedThink.String()+" unless the bounds want longer and clerks that give up within "+swarmKVAimedTimeout().String()+"; on "+pct(swarmKVAimed)+" of the other seeds one aimed at Raft (Figure 8, crashes right after votes); else bursts of random faults of drawn kinds and rate, or none; 5 s to 3 min. "+
		"After every burst everything heals (long reordering and long delays off) and an operation begun after the heal must complete within 10 s; after the last, a fresh clerk's read must too; a seed that fires more than "+strconv.Itoa(swarmKVEvents)+" events fails as a storm; porcupine then checks that the history is linearizable.",
		func(b Bug) bool { return b.plantRSM(&rsm.Config{}) },
		func(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
			return swarmKV{bug: bug}.run(seed, dir, trace)
		})
}

// swarmKVAimedTimeout is the longest clerk timeout a seed aimed at the
// leases draws: a sixth of the lab's ElectionMin. A writer that waits on
// a cut-off leader longer mostly reaches the new one only after the
// drift margin's window has closed (tried with the skewed cut-offs on a
// LAN: timeouts of 70 ms and more found no missing margin).
func swarmKVAimedTimeout() time.Duration { return raft.LabConfig().ElectionMin / 6 }

// pct formats a share as a percentage: "30 %".
func pct(share float64) string { return fmt.Sprintf("%.0f %%", 100*share) }

// The nemeses swarm-kv aims at a bug: at the leases (flickers, skewed),
// or at Raft (figure8, votes).
const (
	notAimed = iota
	flickers
	skewed
	figure8
	votes
)

// run draws the seed's configuration and runs it.
func (sp swarmKV) run(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	d := testbed.NewDraw(seed, 1)
	servers := d.Int("servers", 3, 7)
	opts := kvraft.Options{Raft: raft.LabConfig(), MaxRaftState: -1}
	// Many seeds read by lease, whose promise rests on timing, the
	// others through the log or by ReadIndex.
	opts.Reads = rsm.ReadLease
	if !d.Chance("lease reads", swarmKVLease) {
		opts.Reads = rsm.ReadMode(d.Pick("reads", "log", "readindex"))
	}
	// Most seeds that read by lease aim a nemesis at the leases: flickers
	// (kv-lease-elections') or skewed cut-offs (kv-lease-drift's). Their
	// moments are tens of milliseconds wide, and only a reader that has
	// the deposed leader's ear, and a writer that leaves it within them,
	// show a stale read: readers, clerks that give up on a server within
	// a lease, and, for the skewed cut-offs, whose window is the drift
	// margin, a LAN.
	aim := notAimed
	if opts.Reads == rsm.ReadLease && d.Chance("aimed at leases", swarmKVLeaseAimed) {
		aim = flickers + d.Pick("lease nemesis", "lease flickers", "skewed cut-offs")
		if aim == flickers && servers%2 == 0 {
			// The bridge makes a majority with either side only when the
			// servers are odd.
			servers++
			d.Note("servers", fmt.Sprintf("%d (a flicker needs an odd count)", servers))
		}
	} else if d.Chance("aimed nemesis", swarmKVAimed) {
		aim = figure8 + d.Pick("nemesis", "figure 8", "votes")
	}
	leaseAimed := aim == flickers || aim == skewed
	if d.Chance("snapshots", 0.7) {
		opts.MaxRaftState = d.LogInt("snapshot at bytes", 1<<10, 64<<10)
	}
	if sp.bug != nil {
		sp.bug.plantRSM(&opts)
	}

	leastReaders := 0
	if leaseAimed {
		leastReaders = 1
	}
	clients, readers := d.LogInt("clients", 1, 50), d.Int("readers", leastReaders, 3)
	keys := d.LogInt("keys", 1, 20)
	// The clients are split into groups of at most swarmKVPerKey, each
	// on keys of its own (workload.Groups).
	groups := (clients + readers + swarmKVPerKey - 1) / swarmKVPerKey
	if keys < groups {
		keys = groups
		d.Note("keys", fmt.Sprintf("%d (at most %d clients a key)", keys, swarmKVPerKey))
	}
	length := testbed.DrawLength(d, 5*time.Second, 30*time.Second, 3*time.Minute, 0.2)
	// Each client issues an operation per think/2 on average: pause long
	// enough for the whole run to stay within the bounds.
	floor := time.Duration(2 * float64(clients+readers) * float64(length) / float64(min(swarmKVOps, swarmKVOpsPerKey*keys)))
	// (Aimed at the leases, a client pauses less, so that reads and
	// writes fall within their moments.)
	longest := 100 * time.Millisecond
	if leaseAimed {
		longest = swarmKVAimedThink
	}
	think := d.Duration("think", max(time.Millisecond, floor), max(longest, 2*floor))
	// Every mix reads at least as often as it appends: porcupine prunes
	// its search at reads, and appends that overlap (through a nemesis's
	// crashes, say) with few reads between them are orders it must try
	// one by one: one seed in 2 000, appending twice as often as it read,
	// ran out of porcupine's budget with 3 minutes.
	get := d.Int("get weight", 1, 3)
	mix := workload.Mix{Get: float64(get), Put: float64(d.Int("put weight", 0, 3)), Append: float64(d.Int("append weight", 0, get))}
	value := 0
	if d.Chance("big values", 0.3) {
		// Appends add up: a key's value grows by each, and every
		// snapshot and read carries it whole.
		value = d.LogInt("value bytes", 16, 4<<10)
		if mix.Append > 0 && value > 128 {
			value = 128
			d.Note("value bytes", "128 (with appends)")
		}
	}

	var net testbed.Network
	if leaseAimed {
		net = testbed.DrawLAN(d, 1)
	} else {
		net = testbed.DrawNetwork(d)
	}
	opts.Raft.Bandwidth = net.Params.Bandwidth // batches that keep heartbeats going on a slow link
	progress := swarmKVProgress

	// A clerk gives up on a server after rsm.DefaultTimeout, or, on some
	// seeds (every seed aimed at the leases), sooner: within
	// swarmKVAimedTimeout when aimed, an election timeout otherwise, and never before eight
	// of the network's longest ways (an operation's way there and back and
	// two rounds of Raft's), nor on a bandwidth-bound link, where a batch
	// alone may take longer.
	clerkTimeout := rsm.DefaultTimeout
	if net.Params.Bandwidth == 0 && (leaseAimed || d.Chance("short clerk timeout", swarmKVShortTimeouts)) {
		lo, hi := max(10*time.Millisecond, 8*net.LongestWay()), opts.Raft.ElectionMin
		if leaseAimed {
			hi = swarmKVAimedTimeout()
		}
		clerkTimeout = d.Duration("clerk timeout", lo, max(lo, hi))
	}

	var n testbed.Nemesis
	if opts.Reads == rsm.ReadLease {
		n.Schedule = driftWithin(d, servers, opts.Raft.LeaseDrift)
	}
	onWorld := func(nemesis func(*sim.World, *cluster.Cluster) (func(), error)) func(*testbed.Env) (func(), error) {
		return func(e *testbed.Env) (func(), error) { return nemesis(e.World, e.Cluster) }
	}
	switch aim {
	case flickers:
		n.Reactive = onWorld(leaseNemesis)
	case skewed:
		n.Reactive = onWorld(skewedCutoffs(opts.Raft))
	case figure8:
		n.Reactive = figure8Nemesis().Start
	case votes:
		n.Reactive = votesNemesis(opts.Raft).Start
	default:
		bursts, err := testbed.DrawFaults(d, servers, length, progress, net.Modes)
		if err != nil {
			return testbed.Run{}, err
		}
		n.Schedule, n.Heals = append(n.Schedule, bursts.Schedule...), bursts.Heals
	}
	d.Note("progress bound", progress.String())

	kv := &testbed.KV{
		Clerk: func(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV {
			ck := kvraft.MakeClerk(host, servers)
			ck.SetTimeout(clerkTimeout)
			return ck
		},
		Clients: clients, Readers: readers,
		Spec: workload.Spec{Mix: mix, Keys: workload.Groups(keys, groups), Think: think, ValueSize: value},
	}
	return testbed.Run{
		Name: "swarm-kv", Seed: seed, Trace: trace, Dir: dir, Drawn: d.Params,
		Deploy:   cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: servers, Factory: kvdeploy.Factory(opts.MaxRaftState, opts)}}},
		Network:  net,
		Workload: kv, Nemesis: n,
		Length: length, Settle: kvSettle, Progress: progress, MaxEvents: swarmKVEvents,
		Checks: []testbed.Check{kv.Linearizable(checkTimeout)},
	}, nil
}

// driftWithin draws a clock rate for each of servers hosts within bound
// of true time, as steps at the start of the run.
func driftWithin(d *testbed.Draw, servers int, bound float64) []chaos.Step {
	steps := make([]chaos.Step, servers)
	for h := range steps {
		rate := d.Float(fmt.Sprintf("clock rate %d", h), 1-bound, 1+bound)
		steps[h] = chaos.Step{Fault: fault.Fault{Kind: fault.Drift, Host: h, Rate: rate}}
	}
	return steps
}
