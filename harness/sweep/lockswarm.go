package sweep

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/labrpc"
)

// lockSwarmStream is the random stream, beside the seed, from which
// swarm-locks draws a seed's configuration and faults.
const lockSwarmStream = 0x7377617266 // "swarf"

// The bounds of swarm-locks' draws.
const (
	swarmMaxClients = 50 // clerks, readers among them
	swarmMaxKeys    = 20
	// swarmPerKey bounds the clerks and readers that share a key:
	// porcupine's search grows with how many writes to one key overlap
	// (seed 7595 of an earlier draw, 7 clerks on a hot key, each queued
	// behind a lock a cut-off clerk held, took minutes to check 300 of
	// its operations).
	swarmPerKey = 4
	// swarmMaxEvents fails a seed whose world fires more events (a storm):
	// ten times the most of 300 seeds.
	swarmMaxEvents = 6_000_000
	swarmMaxOps    = 20000
	swarmMaxDrift  = 0.1 // the largest drift bound (Config.Drift) drawn
	swarmAimed     = 0.3 // the share of seeds aimed at the leases
	// swarmSilence is kept between the longest silence a burst can force
	// on a clerk (the burst, two elections, a renewal and an RPC timeout,
	// on a lock server's fast clock) and BreakAfter, past which the lock
	// service breaks a silent holder's lock and its writes are lost as
	// documented.
	swarmSilence = 500 * time.Millisecond
)

// lockSwarm is swarm-locks: each seed draws the whole configuration —
// lock servers, clerks and readers, keys and contention, op mix, lease
// and drift, snapshots, network, faults, length — from a stream of its
// own, and the run is checked for linearizability, lost writes, and
// progress after every heal.
func lockSwarm() Scenario {
	return swarmScenario("swarm-locks", "Frangipani lease/lock cache with its whole configuration drawn from the seed (printed with it): "+
		fmt.Sprintf("3–7 lock servers; 1–%d caching clerks, some of them readers only, each on a key of its own, or in groups of up to %d, each group on keys of its own (1–%d keys in all) picked uniformly, or up to %d on a hot key or keys by Zipf's law, half as many a key with locks only; ", swarmMaxClients, swarmPerKey, swarmMaxKeys+(swarmMaxClients+swarmPerKey-1)/swarmPerKey, swarmPerKey)+
		fmt.Sprintf("a mix of Gets, Puts and Appends, values of up to 256 bytes, pauses offering 20–1000 operations a second in all (at most %d a run); ", swarmMaxOps)+
		fmt.Sprintf("leases of 0.3–2 s renewed 3–10 times a lease, a drift bound of %.0f–%.0f%% or none, every clock within it (mostly the worst way: clerks slow, lock servers fast), ", 100*swarmMaxDrift/10, 100*swarmMaxDrift)+
		"locks only or operations the lock service performs, snapshots at 2–64 KB or none; latency, jitter, losses, bandwidth, duplicated requests; "+
		fmt.Sprintf("on %.0f %% of seeds aimed at the leases: one key, a writer's and 1–4 readers', pauses of 50–400 ms, clocks at the drift bound the worst way, clerks cut off; ", 100*swarmAimed)+
		"else no faults, or bursts of server faults (partitions, bridges, cuts, kills and restarts of lock servers, long reordering and delays) and of clerks cut off from the lock service (each, once back, left to renew before it is cut off again), each burst short enough that no holder stays silent for BreakAfter, "+
		"each healed and followed by a calm in which an operation begun must complete within a lease, two elections, two RPC timeouts and a renewal, plus the longest a call in flight at the heal may take to return; "+
		"5 s to 3 min of virtual time. Then porcupine, no clerk's writes lost, and a fresh clerk's read.",
		func(b Bug) bool { return b.plantFrangipani(&frangipani.Config{}) },
		func(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
			return lockSwarmSpec{bug: bug}.run(seed, dir, trace)
		})
}

// lockSwarmSpec is swarm-locks with, perhaps, a planted bug.
type lockSwarmSpec struct{ bug *Bug }

func (sp lockSwarmSpec) run(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	d := testbed.NewDraw(seed, lockSwarmStream)
	servers := d.Int("lock-servers", 3, 7)
	// Locks only queues every operation of a shared key for its lock: the
	// operations on a key overlap longer, and porcupine's search grows
	// with that, so fewer clerks share a key.
	locksOnly := d.Chance("locks only", 0.3)
	// A seed aimed at the leases has readers share a writer's key, cut
	// off from the lock service again and again while they hold it
	// shared, clocks at the drift bound the worst way.
	aimed := d.Chance("aimed at leases", swarmAimed)
	var keys workload.Keys
	var total, readers int
	if aimed {
		keys, total = workload.Uniform(1), d.Int("clerks and readers", 2, 5)
		readers = total - 1
		d.Note("keys", "one, a writer's and its readers'")
	} else {
		keys, total = swarmKeys(d, locksOnly)
		if d.Chance("some readers", 0.75) {
			readers = d.Int("readers", 0, total-1)
		}
	}
	d.Note("clerks", fmt.Sprint(total-readers))
	mix := workload.Mix{Get: float64(d.Int("get weight", 0, 4)), Put: float64(d.Int("put weight", 1, 3)), Append: float64(d.Int("append weight", 0, 3))}
	valueSize := 0
	if d.Chance("padded values", 0.5) {
		valueSize = d.Int("value bytes", 0, 256)
	}
	length := testbed.DrawLength(d, 5*time.Second, 20*time.Second, 3*time.Minute, 0.3)
	// The clerks together offer about rate operations a second (each
	// pauses up to think, half as long on average), at most swarmMaxOps
	// over the run, so that histories stay checkable and seeds cheap.
	var think time.Duration
	if aimed { // pauses that leave the key to a reader between writes
		think = d.Duration("think", 50*time.Millisecond, 400*time.Millisecond)
	} else {
		rate := min(d.Float("offered ops/s", 20, 1000), swarmMaxOps/length.Seconds())
		think = time.Duration(2 * float64(total) / rate * float64(time.Second)).Round(time.Microsecond)
		d.Note("think", think.String())
	}

	cfg := frangipanitest.Config()
	cfg.Lease = d.Duration("lease", 300*time.Millisecond, 2*time.Second)
	cfg.Drift = 0
	if aimed || d.Chance("drift", 0.75) {
		cfg.Drift = d.Float("drift bound", swarmMaxDrift/10, swarmMaxDrift)
	}
	cfg.RenewEvery = (cfg.ClientLease() / time.Duration(d.Int("renewals a lease", 3, 10))).Round(time.Millisecond)
	cfg.RPCTimeout = time.Duration(float64(cfg.RenewEvery) * d.Float("rpc timeout/renewal", 1.5, 4)).Round(time.Millisecond)
	cfg.Linger = d.Duration("linger", 10*time.Microsecond, 5*time.Millisecond)
	// (Rounded to the microsecond, a MaxHold drawn close to Linger may fall
	// below it, which frangipani refuses: seed 10206.)
	cfg.MaxHold = max(cfg.Linger, time.Duration(float64(cfg.Linger)*d.Float("max hold/linger", 1, 50)).Round(time.Microsecond))
	cfg.LocksOnly = locksOnly
	cfg.RSM.MaxRaftState = -1
	if d.Chance("snapshots", 2.0/3) {
		cfg.RSM.MaxRaftState = d.LogInt("snapshot at bytes", 2<<10, 64<<10)
	}
	d.Note("renew every", cfg.RenewEvery.String())
	d.Note("rpc timeout", cfg.RPCTimeout.String())
	if sp.bug != nil {
		sp.bug.plantFrangipani(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		return testbed.Run{}, fmt.Errorf("swarm-locks seed %d drew a configuration frangipani refuses: %w", seed, err)
	}

	deploy, err := frangipanitest.Deployment{Replicas: servers, Config: cfg}.Cluster()
	if err != nil {
		return testbed.Run{}, err
	}
	var schedule []chaos.Step
	if cfg.Drift > 0 {
		schedule = swarmClocks(d, aimed, cfg.Drift, testbed.ServerHosts(deploy), testbed.ClientHosts(deploy, total))
	}

	modes := chaos.Modes{Unreliable: d.Chance("unreliable", 0.6)}
	params := labrpc.DefaultParams()
	params.Latency = d.Duration("latency", 50*time.Microsecond, 5*time.Millisecond)
	params.Jitter = time.Duration(d.Float("jitter/latency", 0, 1) * float64(params.Latency))
	params.RequestLoss, params.ReplyLoss = d.Float("request loss", 0, 0.2), d.Float("reply loss", 0, 0.2)
	if d.Chance("bandwidth bound", 0.25) {
		params.Bandwidth = int64(d.LogInt("bandwidth bytes/s", 1<<20, 100<<20))
	}
	if d.Chance("duplication", 0.5) {
		rate := d.Float("duplicate", 0, 0.2)
		schedule = append(schedule, chaos.Step{Fault: fault.Fault{Kind: fault.Duplicate, Rate: rate}})
	}

	n, progress, err := swarmLockFaults(d, aimed, cfg, params, servers, testbed.ClientHosts(deploy, total), modes, length)
	if err != nil {
		return testbed.Run{}, err
	}
	n.Schedule = append(schedule, n.Schedule...)

	cs := &frangipanitest.Clerks{Config: cfg}
	kv := &testbed.KV{Clerk: cs.Make, Clients: total - readers, Readers: readers,
		Spec: workload.Spec{Mix: mix, Keys: keys, Think: think, ValueSize: valueSize}}
	return testbed.Run{
		Name: "swarm-locks", Seed: seed, Dir: dir, Trace: trace, Drawn: d.Params,
		Deploy:   deploy,
		Network:  testbed.Network{Params: &params, Modes: modes},
		Workload: kv, Nemesis: n,
		Length: length, Settle: frangipanitest.Settle, Progress: progress, MaxEvents: swarmMaxEvents,
		Checks: []testbed.Check{kv.Linearizable(checkTimeout), cs.NoneLost},
	}, nil
}

// swarmKeys draws the keys' distribution and how many clerks share it:
// up to swarmMaxClients each on a key of its own, or in groups of up to
// swarmPerKey on keys of their group picked uniformly (workload.Groups),
// or up to swarmPerKey with one hot key or keys picked by Zipf's law;
// half as many a key with locksOnly, which queues a key's operations for
// its lock, so that they overlap longer.
func swarmKeys(d *testbed.Draw, locksOnly bool) (workload.Keys, int) {
	perKey := swarmPerKey
	if locksOnly {
		perKey /= 2
	}
	switch d.Pick("keys", "own", "groups", "hot", "zipf") {
	case 0:
		return workload.Own(), d.LogInt("clerks and readers", 1, swarmMaxClients)
	case 1:
		total := d.LogInt("clerks and readers", 1, swarmMaxClients)
		groups := (total + perKey - 1) / perKey
		n := groups + d.Int("more keys", 0, swarmMaxKeys)
		d.Note("key count", fmt.Sprintf("%d in %d groups", n, groups))
		return workload.Groups(n, groups), total
	case 2:
		n, p := d.Int("key count", 1, swarmMaxKeys), d.Float("hot key's share", 0.3, 0.95)
		return workload.HotKey(n, p), d.LogInt("clerks and readers", 1, perKey)
	default:
		n, s := d.Int("key count", 2, swarmMaxKeys), d.Float("zipf exponent", 1.1, 2.1)
		return workload.Zipf(n, s), d.LogInt("clerks and readers", 1, perKey)
	}
}

// swarmClocks draws the clocks' rates within the drift bound: the worst
// way, which the bound is for (lock servers fast, clerks slow), when worst
// is set and mostly otherwise, or each at random.
func swarmClocks(d *testbed.Draw, worst bool, bound float64, servers, clerks []int) []chaos.Step {
	if worst || d.Chance("worst clocks", 0.75) {
		return append(testbed.Clocks(1+bound, servers...), testbed.Clocks(1-bound, clerks...)...)
	}
	var steps []chaos.Step
	for _, h := range append(slices.Clone(servers), clerks...) {
		steps = append(steps, testbed.Clocks(1+bound*(2*d.Rand().Float64()-1), h)...)
	}
	return steps
}

// swarmLockFaults draws the nemesis: none, or bursts of server faults,
// clerk isolations or both, each burst healed and followed by a calm of
// progress, which it returns: frangipanitest.Progress, plus the longest a
// call in flight at the heal may take to return on the network the bursts
// leave (a reply held back by long reordering, a call to a cut-off host
// with long delays on), since Raft sends a follower nothing new while its
// last AppendEntries is out. A burst lasts at most what keeps a clerk's
// silence, as the lock servers' fast clocks measure it, short of
// BreakAfter.
func swarmLockFaults(d *testbed.Draw, aimed bool, cfg frangipani.Config, params labrpc.Params, servers int, clerks []int, modes chaos.Modes, length time.Duration) (testbed.Nemesis, time.Duration, error) {
	progress := frangipanitest.Progress(cfg) + params.NoReply
	// Clerks cut off, the most drawn, are what tests the leases.
	kinds := []string{"none", "lock servers", "clerks cut off", "both"}
	kind := 2
	if !aimed {
		kind = 0
		for r := d.Rand().Float64(); kind < 3 && r >= []float64{0.15, 0.2, 0.4}[kind]; kind++ {
			r -= []float64{0.15, 0.2, 0.4}[kind]
		}
	}
	// A clerk cut off stays silent for its time away, a renewal and an
	// RPC timeout; one whose lock service has no leader, for the burst
	// and two elections besides.
	silence := time.Duration(float64(cfg.BreakAfter)/(1+cfg.Drift)) - cfg.RenewEvery - cfg.RPCTimeout - swarmSilence
	maxBurst := (silence - 2*cfg.RSM.Raft.ElectionMax) * 2 / 3 // a burst is drawn from [Burst/2, 3*Burst/2]
	if kind%2 == 1 && maxBurst < 100*time.Millisecond {
		// A long renewal and RPC timeout leave the lock servers' faults
		// no burst short of BreakAfter: clerks are cut off instead.
		kind = 2
		d.Note("no room for server faults", fmt.Sprintf("%v of silence within BreakAfter %v", silence, cfg.BreakAfter))
	}
	d.Note("faults", kinds[kind])
	if kind == 0 {
		d.Note("progress bound", progress.String())
		return testbed.Nemesis{}, progress, nil
	}
	if kind == 2 { // clerks cut off, one at a time, and no more
		maxBurst = 10 * time.Second
	}
	b := testbed.Bursts{Hosts: servers, Burst: d.Duration("burst", maxBurst/4, maxBurst), Length: length, Modes: modes}
	if kind != 2 {
		b.LastAtMost = b.Burst * 3 / 2 // the longest outage the budget allows, the last burst's too
		var w chaos.Weights
		for _, f := range []*float64{&w.Partition, &w.Bridge, &w.Isolate, &w.Cut, &w.Kill, &w.Heal, &w.Reordering, &w.LongDelays} {
			*f = float64(d.Rand().IntN(3))
		}
		if w.Kill > 0 {
			w.Restart = float64(1 + d.Rand().IntN(2))
		}
		if w == (chaos.Weights{}) {
			w.Kill, w.Restart = 1, 1
		}
		d.Note("fault weights", fmt.Sprintf("%+v", w))
		b.Faults = chaos.NemesisConfig{Interval: d.Duration("fault interval", 50*time.Millisecond, time.Second), Weights: w}
		if w.Reordering > 0 {
			progress = max(progress, frangipanitest.Progress(cfg)+params.ReorderMin+params.ReorderSpan)
		}
		if w.LongDelays > 0 {
			progress = max(progress, frangipanitest.Progress(cfg)+params.LongNoReply)
		}
	}
	if kind != 1 {
		// Back from an isolation, a clerk rests long enough to renew (twice,
		// should a try be lost) before it may be cut off again.
		b.Clients = testbed.Isolations{Hosts: clerks, Away: min(2*cfg.Lease, silence), Gap: d.Duration("isolation gap", 100*time.Millisecond, time.Second),
			Rest: 2 * (cfg.RenewEvery + cfg.RPCTimeout)}
		d.Note("away up to", b.Clients.Away.String())
	}
	d.Note("progress bound", progress.String())
	b.Calm = progress
	n, err := b.Generate(d.Rand())
	return n, progress, err
}
