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
	return swarmScenario("swarm-kv", "Key/value servers on Raft, the whole configuration drawn from the seed: 3-7 servers; 1-50 clients and 0-3 readers; 1-20 keys, the clients in groups of at most 4 on keys of their own (and a reader at most); the op mix (appends at most as often as reads); values of up to 4 KB; reads through the log, by ReadIndex or by lease (clocks drifting within the lease's bound); snapshots at 1-64 KB of Raft state or never; the network's latency, jitter, loss, reordering, bandwidth (which bounds Raft's batches: its Bandwidth) and duplication; on 30 % of seeds one of the nemeses aimed at a bug (lease flickers, clocks skewed as far as leases allow with the leader cut off, Raft's Figure 8, crashes right after votes), else bursts of random faults of drawn kinds and rate, or none; 5 s to 3 min. "+
		"After every burst everything heals (long reordering and long delays off) and an operation begun after the heal must complete within 10 s; after the last, a fresh clerk's read must too; a seed that fires more than "+strconv.Itoa(swarmKVEvents)+" events fails as a storm; porcupine then checks that the history is linearizable.",
		func(b Bug) bool { return b.plantRSM(&rsm.Config{}) },
		func(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
			return swarmKV{bug: bug}.run(seed, dir, trace)
		})
}

// run draws the seed's configuration and runs it.
func (sp swarmKV) run(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	d := testbed.NewDraw(seed, 1)
	servers := d.Int("servers", 3, 7)
	opts := kvraft.Options{Raft: raft.LabConfig(), MaxRaftState: -1}
	opts.Reads = rsm.ReadMode(d.Pick("reads", "log", "readindex", "lease"))
	if d.Chance("snapshots", 0.7) {
		opts.MaxRaftState = d.LogInt("snapshot at bytes", 1<<10, 64<<10)
	}
	if sp.bug != nil {
		sp.bug.plantRSM(&opts)
	}

	clients, readers := d.LogInt("clients", 1, 50), d.Int("readers", 0, 3)
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
	think := d.Duration("think", max(time.Millisecond, floor), max(100*time.Millisecond, 2*floor))
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

	net := testbed.DrawNetwork(d)
	opts.Raft.Bandwidth = net.Params.Bandwidth // batches that keep heartbeats going on a slow link
	progress := swarmKVProgress

	var n testbed.Nemesis
	if opts.Reads == rsm.ReadLease {
		n.Schedule = driftWithin(d, servers, opts.Raft.LeaseDrift)
	}
	if d.Chance("aimed nemesis", 0.3) {
		onWorld := func(nemesis func(*sim.World, *cluster.Cluster) (func(), error)) func(*testbed.Env) (func(), error) {
			return func(e *testbed.Env) (func(), error) { return nemesis(e.World, e.Cluster) }
		}
		n.Reactive = []func(*testbed.Env) (func(), error){
			onWorld(leaseNemesis), onWorld(skewedCutoffs(opts.Raft)), figure8Nemesis().Start, votesNemesis(opts.Raft).Start,
		}[d.Pick("nemesis", "lease flickers", "skewed cut-offs", "figure 8", "votes")]
	} else {
		bursts, err := testbed.DrawFaults(d, servers, length, progress, net.Modes)
		if err != nil {
			return testbed.Run{}, err
		}
		n.Schedule, n.Heals = append(n.Schedule, bursts.Schedule...), bursts.Heals
	}
	d.Note("progress bound", progress.String())

	kv := &testbed.KV{
		Clerk:   func(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV { return kvraft.MakeClerk(host, servers) },
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
