package sweep

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
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
	swarmPerKey     = 5 // clerks a key, at most, when keys are picked uniformly
	swarmHot        = 8 // clerks, at most, on a hot key or keys by Zipf's law
	swarmMaxOps     = 20000
	swarmMaxDrift   = 0.1 // the largest drift bound (Config.Drift) drawn
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
func lockSwarm() Scenario { return lockSwarmSpec{}.scenario() }

// lockSwarmSpec is swarm-locks with, perhaps, a planted bug.
type lockSwarmSpec struct{ bug *Bug }

func (sp lockSwarmSpec) scenario() Scenario {
	return Scenario{Name: "swarm-locks", Description: "Frangipani lease/lock cache with its whole configuration drawn from the seed (printed with it): " +
		fmt.Sprintf("3–7 lock servers; 1–%d caching clerks, some of them readers only, each on a key of its own, or sharing 1–%d keys picked uniformly (up to %d clerks a key), or up to %d clerks on a hot key or keys by Zipf's law; ", swarmMaxClients, swarmMaxKeys+swarmMaxClients/swarmPerKey, swarmPerKey, swarmHot) +
		fmt.Sprintf("a mix of Gets, Puts and Appends, values of up to 256 bytes, pauses offering 20–1000 operations a second in all (at most %d a run); ", swarmMaxOps) +
		fmt.Sprintf("leases of 0.3–2 s renewed 3–10 times a lease, a drift bound of 0–%.0f%% with every clock within it (half the time the worst way: clerks slow, lock servers fast), ", 100*swarmMaxDrift) +
		"locks only or operations the lock service performs, snapshots at 2–64 KB or none; latency, jitter, losses, bandwidth, duplicated requests; " +
		"no faults, or bursts of server faults (partitions, bridges, cuts, kills and restarts of lock servers, long reordering and delays) and of clerks cut off from the lock service, each burst short enough that no holder stays silent for BreakAfter, " +
		"each healed and followed by a calm in which an operation begun must complete within a lease, two elections, two RPC timeouts and a renewal, plus the longest a call in flight at the heal may take to return; " +
		"5 s to 3 min of virtual time. Then porcupine, no clerk's writes lost, and a fresh clerk's read.",
		Run: func(seed int64, dir string, trace io.Writer) Outcome {
			return outcome(sp.run(seed, dir, trace))
		},
		plant: planter(sp, lockSwarmSpec.scenario, func(p *lockSwarmSpec, b Bug) bool {
			var cfg frangipani.Config
			if !b.plantFrangipani(&cfg) {
				return false
			}
			p.bug = &b
			return true
		})}
}

// draws records what a seed drew, in order, as printed.
type draws []testbed.Param

func (d *draws) add(name, format string, args ...any) {
	*d = append(*d, testbed.Param{Name: name, Value: fmt.Sprintf(format, args...)})
}

// logUniform draws from [lo, hi] uniformly on a log scale.
func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return lo * math.Exp(rng.Float64()*math.Log(hi/lo))
}

// logDuration draws a duration from [lo, hi] uniformly on a log scale.
func logDuration(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return time.Duration(logUniform(rng, float64(lo), float64(hi))).Round(time.Microsecond)
}

// between draws a duration uniformly from [lo, hi].
func between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
}

func (sp lockSwarmSpec) run(seed int64, dir string, trace io.Writer) (*testbed.Record, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), lockSwarmStream))
	var d draws

	servers := 3 + rng.IntN(5)
	d.add("lock-servers", "%d", servers)
	keys, total, keysSay := swarmKeys(rng)
	readers := 0
	if rng.IntN(2) == 0 {
		readers = rng.IntN(total)
	}
	d.add("clerks", "%d", total-readers)
	d.add("readers", "%d", readers)
	d.add("keys", "%s", keysSay)
	mix := workload.Mix{Get: float64(rng.IntN(5)), Put: float64(1 + rng.IntN(3)), Append: float64(rng.IntN(4))}
	d.add("mix", "get %g put %g append %g", mix.Get, mix.Put, mix.Append)
	valueSize := 0
	if rng.IntN(2) == 0 {
		valueSize = rng.IntN(257)
	}
	d.add("value-size", "%d", valueSize)
	length := swarmLength(rng)
	d.add("length", "%v", length)
	// The clerks together offer about rate operations a second (each
	// pauses up to think, half as long on average), at most swarmMaxOps
	// over the run, so that histories stay checkable and seeds cheap.
	rate := min(logUniform(rng, 20, 1000), swarmMaxOps/length.Seconds())
	think := time.Duration(2 * float64(total) / rate * float64(time.Second)).Round(time.Microsecond)
	d.add("think", "%v", think)

	cfg := frangipanitest.Config()
	cfg.Lease = logDuration(rng, 300*time.Millisecond, 2*time.Second)
	cfg.Drift = 0
	if rng.IntN(4) > 0 {
		cfg.Drift = math.Round(rng.Float64()*swarmMaxDrift*1000) / 1000
	}
	cfg.RenewEvery = (cfg.ClientLease() / time.Duration(3+rng.IntN(8))).Round(time.Millisecond)
	cfg.RPCTimeout = time.Duration(float64(cfg.RenewEvery) * (1.5 + 2.5*rng.Float64())).Round(time.Millisecond)
	cfg.Linger = logDuration(rng, 10*time.Microsecond, 5*time.Millisecond)
	cfg.MaxHold = time.Duration(float64(cfg.Linger) * (1 + 49*rng.Float64())).Round(time.Microsecond)
	cfg.LocksOnly = rng.IntN(5) == 0
	cfg.RSM.MaxRaftState = -1
	if rng.IntN(3) > 0 {
		cfg.RSM.MaxRaftState = int(logUniform(rng, 2<<10, 64<<10))
	}
	d.add("lease", "%v", cfg.Lease)
	d.add("drift-bound", "%g", cfg.Drift)
	d.add("renew-every", "%v", cfg.RenewEvery)
	d.add("rpc-timeout", "%v", cfg.RPCTimeout)
	d.add("linger", "%v", cfg.Linger)
	d.add("max-hold", "%v", cfg.MaxHold)
	d.add("locks-only", "%t", cfg.LocksOnly)
	d.add("max-raft-state", "%d", cfg.RSM.MaxRaftState)
	if sp.bug != nil {
		sp.bug.plantFrangipani(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("swarm-locks seed %d drew a configuration frangipani refuses: %w", seed, err)
	}

	deploy, err := frangipanitest.Deployment{Replicas: servers, Config: cfg}.Cluster()
	if err != nil {
		return nil, err
	}
	serverHosts, clientHosts := testbed.ServerHosts(deploy), testbed.ClientHosts(deploy, total)
	var schedule []chaos.Step
	if cfg.Drift > 0 {
		worst := rng.IntN(2) == 0
		d.add("clocks", "%s", map[bool]string{true: "worst (clerks slow, lock servers fast)", false: "each drawn within the bound"}[worst])
		rate := func(fast bool) float64 {
			if worst && fast {
				return 1 + cfg.Drift
			} else if worst {
				return 1 - cfg.Drift
			}
			return 1 + cfg.Drift*(2*rng.Float64()-1)
		}
		for _, h := range serverHosts {
			schedule = append(schedule, testbed.Clocks(rate(true), h)...)
		}
		for _, h := range clientHosts {
			schedule = append(schedule, testbed.Clocks(rate(false), h)...)
		}
	}

	modes := chaos.Modes{Unreliable: rng.IntN(5) < 3}
	params := labrpc.DefaultParams()
	params.Latency = logDuration(rng, 50*time.Microsecond, 5*time.Millisecond)
	params.Jitter = time.Duration(rng.Int64N(int64(params.Latency) + 1))
	params.RequestLoss, params.ReplyLoss = math.Round(rng.Float64()*200)/1000, math.Round(rng.Float64()*200)/1000
	if rng.IntN(4) == 0 {
		params.Bandwidth = int64(logUniform(rng, 1<<20, 100<<20))
	}
	d.add("network", "unreliable %t (loss %g/%g), latency %v+%v, bandwidth %d B/s (0: unlimited)", modes.Unreliable, params.RequestLoss, params.ReplyLoss, params.Latency, params.Jitter, params.Bandwidth)
	duplicate := 0.0
	if rng.IntN(2) == 0 {
		duplicate = math.Round(rng.Float64()*200) / 1000
	}
	d.add("duplicate", "%g", duplicate)
	if duplicate > 0 {
		schedule = append(schedule, chaos.Step{Fault: fault.Fault{Kind: fault.Duplicate, Rate: duplicate}})
	}

	n, progress, err := swarmLockFaults(rng, &d, cfg, params, servers, clientHosts, modes, length)
	if err != nil {
		return nil, err
	}
	n.Schedule = append(schedule, n.Schedule...)

	cs := &frangipanitest.Clerks{Config: cfg}
	kv := &testbed.KV{Clerk: cs.Make, Clients: total - readers, Readers: readers,
		Spec: workload.Spec{Mix: mix, Keys: keys, Think: think, ValueSize: valueSize}}
	return testbed.Run{
		Name: "swarm-locks", Seed: seed, Dir: dir, Trace: trace, Drawn: d,
		Deploy:   deploy,
		Network:  testbed.Network{Params: &params, Modes: modes},
		Workload: kv, Nemesis: n,
		Length: length, Settle: frangipanitest.Settle, Progress: progress,
		Checks: []testbed.Check{kv.Linearizable(checkTimeout), cs.NoneLost},
	}.Execute()
}

// swarmKeys draws the keys' distribution and how many clerks share it:
// up to swarmMaxClients each on a key of its own, or shared uniformly by
// up to swarmPerKey a key, or up to swarmHot with one hot key or keys
// picked by Zipf's law (porcupine's search grows with the operations
// on one key at once).
func swarmKeys(rng *rand.Rand) (workload.Keys, int, string) {
	clients := func(most int) int { return 1 + int(float64(most)*math.Pow(rng.Float64(), 2)) } // mostly few
	switch rng.IntN(4) {
	case 0:
		return workload.Own(), clients(swarmMaxClients), "own"
	case 1:
		total := clients(swarmMaxClients)
		n := (total+swarmPerKey-1)/swarmPerKey + rng.IntN(swarmMaxKeys+1)
		return workload.Uniform(n), total, fmt.Sprintf("uniform over %d", n)
	case 2:
		n := 1 + rng.IntN(swarmMaxKeys)
		p := math.Round((0.3+0.65*rng.Float64())*100) / 100
		return workload.HotKey(n, p), clients(swarmHot), fmt.Sprintf("k0 hot (%g), else uniform over %d", p, n)
	default:
		n := 2 + rng.IntN(swarmMaxKeys-1)
		s := math.Round((1.1+rng.Float64())*100) / 100
		return workload.Zipf(n, s), clients(swarmHot), fmt.Sprintf("zipf over %d, s=%g", n, s)
	}
}

// swarmLength draws a run's length: mostly short, sometimes minutes.
func swarmLength(rng *rand.Rand) time.Duration {
	switch r := rng.IntN(20); {
	case r < 14:
		return between(rng, 5*time.Second, 20*time.Second).Round(time.Millisecond)
	case r < 19:
		return between(rng, 20*time.Second, time.Minute).Round(time.Millisecond)
	default:
		return between(rng, time.Minute, 3*time.Minute).Round(time.Millisecond)
	}
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
func swarmLockFaults(rng *rand.Rand, d *draws, cfg frangipani.Config, params labrpc.Params, servers int, clerks []int, modes chaos.Modes, length time.Duration) (testbed.Nemesis, time.Duration, error) {
	progress := frangipanitest.Progress(cfg) + params.NoReply
	kind := rng.IntN(8)
	if kind == 0 {
		d.add("faults", "none")
		d.add("progress", "%v", progress)
		return testbed.Nemesis{}, progress, nil
	}
	budget := time.Duration(float64(cfg.BreakAfter)/(1+cfg.Drift)) - 2*cfg.RSM.Raft.ElectionMax - cfg.RenewEvery - cfg.RPCTimeout - swarmSilence
	maxBurst := budget * 2 / 3 // a burst is drawn from [Burst/2, 3*Burst/2]
	if maxBurst < 100*time.Millisecond {
		return testbed.Nemesis{}, 0, fmt.Errorf("swarm-locks: BreakAfter %v leaves no room for a burst", cfg.BreakAfter)
	}
	var says []string
	var w chaos.Weights
	interval := time.Duration(0)
	if kind&1 == 1 { // server faults
		w = chaos.Weights{Partition: float64(rng.IntN(3)), Bridge: float64(rng.IntN(2)), Isolate: float64(rng.IntN(3)), Cut: float64(rng.IntN(2)),
			Kill: float64(rng.IntN(3)), Heal: float64(rng.IntN(3)), Reordering: float64(rng.IntN(2)), LongDelays: float64(rng.IntN(2))}
		if w.Kill > 0 {
			w.Restart = float64(1 + rng.IntN(2))
		}
		if w == (chaos.Weights{}) {
			w.Kill, w.Restart = 1, 1
		}
		interval = logDuration(rng, 50*time.Millisecond, time.Second)
		says = append(says, fmt.Sprintf("servers every %v (partition %g bridge %g isolate %g cut %g kill %g restart %g heal %g reordering %g long-delays %g)",
			interval, w.Partition, w.Bridge, w.Isolate, w.Cut, w.Kill, w.Restart, w.Heal, w.Reordering, w.LongDelays))
	}
	if w.Reordering > 0 {
		progress = max(progress, frangipanitest.Progress(cfg)+params.ReorderMin+params.ReorderSpan)
	}
	if w.LongDelays > 0 {
		progress = max(progress, frangipanitest.Progress(cfg)+params.LongNoReply)
	}
	d.add("progress", "%v", progress)
	b := testbed.Bursts{Hosts: servers, Burst: between(rng, maxBurst/4, maxBurst), Calm: progress, Length: length, Modes: modes}
	if interval > 0 {
		b.Faults = chaos.NemesisConfig{Interval: interval, Weights: w}
	}
	if kind&2 == 2 || kind&1 == 0 { // clerks cut off
		b.Clients = testbed.Isolations{Hosts: clerks, Away: min(2*cfg.Lease, b.Burst), Gap: between(rng, 200*time.Millisecond, 2*time.Second)}
		says = append(says, fmt.Sprintf("clerks cut off up to %v, %v apart", b.Clients.Away, b.Clients.Gap))
	}
	d.add("faults", "%s", strings.Join(says, "; "))
	d.add("burst", "%v", b.Burst)
	n, err := b.Generate(rng)
	return n, progress, err
}
