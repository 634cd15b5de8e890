package sweep

import (
	"cmp"
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/sim"
)

// lockSettle bounds finishing every operation after the faults end.
const lockSettle = 30 * time.Second

// A LockSpec is a scenario on frangipani: three lock servers and caching
// clerks running Gets, Puts and Appends for For (10 s unless set) under
// the faults it names; then everything heals, every operation must
// complete within 30 s, no clerk may have lost a write, and porcupine
// checks the history, key by key.
type LockSpec struct {
	Name, Description string
	Config            frangipani.Config
	Clients           int
	// Readers are clerks that only read, beside the Clients: one cut off
	// while it holds a key shared goes on serving it from its cache for
	// as long as its lease lets it.
	Readers int
	// Keys is how many keys the clients share (k0…), picked uniformly; 0
	// gives each client a key of its own.
	Keys int
	// Think is the most a client pauses between operations (5 ms unless
	// set): without pauses a clerk serving from its cache would make
	// histories too long to check.
	Think time.Duration
	For   time.Duration
	// Unreliable loses and delays messages at random.
	Unreliable bool
	// Duplicate is the probability that a request is delivered twice.
	Duplicate float64
	// Isolate cuts a random clerk off from every lock server for up to
	// two leases, again and again: its leases run out while it is away.
	Isolate bool
	// KillLeaders kills the lock service's leader every 1–3 s and restarts
	// it within a second.
	KillLeaders bool
	// Drift runs every clerk's clock at 1−Drift and every lock server's
	// at 1+Drift, the worst case for leases (clerks serve longest, servers
	// expire soonest): safe up to Config.Drift.
	Drift float64
}

// lockScenarios are frangipani's scenarios: 5 clerks on 2 keys.
func lockScenarios() []Scenario {
	cfg := LockConfig()
	base := LockSpec{Config: cfg, Clients: 5, Keys: 2, Unreliable: true}
	isolate, kills, drift := base, base, base
	const shape = "Frangipani lease/lock cache (3 lock servers, 5 caching clerks on 2 keys, unreliable network, snapshots): "
	isolate.Name, isolate.Isolate = "locks-isolate", true
	isolate.Description = shape + "a random clerk cut off from the lock service for up to two leases, again and again; porcupine at the end."
	kills.Name, kills.KillLeaders = "locks-kills", true
	kills.Description = shape + "the lock service's leader killed every 1–3 s and restarted within a second; porcupine at the end."
	drift.Name, drift.Isolate, drift.Drift = "locks-drift", true, cfg.Drift
	drift.Description = shape + fmt.Sprintf("clerks cut off from the lock service again and again, their clocks %.0f%% slow and the lock servers' %.0f%% fast (the drift bound); porcupine at the end.", 100*cfg.Drift, 100*cfg.Drift)
	// A reader that reads the key twice in a row takes its lock shared
	// (a key another client used last is read through the lock service's
	// log); the pauses leave it the key between writes, and cut off then,
	// it serves the key from its cache for as long as its lease lasts
	// while the writer's next write waits for the lock service to let the
	// lease go. A LAN makes that write quick.
	readers := LockSpec{Name: "locks-readers", Config: cfg, Clients: 1, Readers: 3, Keys: 1, Think: 200 * time.Millisecond, For: 30 * time.Second, Isolate: true, Drift: cfg.Drift}
	readers.Description = fmt.Sprintf("Frangipani lease/lock cache (3 lock servers, on a LAN, one caching clerk that reads and writes and three that only read, all on one key, pausing up to 200 ms between operations, snapshots) for 30 s: a random clerk cut off from the lock service for up to two leases, again and again, the clerks' clocks %.0f%% slow and the lock servers' %.0f%% fast (the drift bound); porcupine at the end.", 100*cfg.Drift, 100*cfg.Drift)
	return []Scenario{isolate.Scenario(), kills.Scenario(), drift.Scenario(), readers.Scenario(), lockDuplicates()}
}

// LockConfig is the configuration of the frangipani scenarios:
// frangipani's default, with snapshots once a replica's Raft state
// reaches 8 KB.
func LockConfig() frangipani.Config {
	cfg := frangipani.DefaultConfig()
	cfg.RSM.MaxRaftState = 8 << 10
	return cfg
}

// Scenario returns the spec as a scenario.
func (sp LockSpec) Scenario() Scenario {
	return Scenario{Name: sp.Name, Description: sp.Description, Run: func(seed int64, dir string, trace io.Writer) Outcome {
		o, _ := sp.Run(seed, dir, trace)
		return o
	}, plant: planter(sp, LockSpec.Scenario, func(p *LockSpec, b Bug) bool { return b.plantFrangipani(&p.Config) })}
}

// Run runs one seed and returns its outcome and its world.
func (sp LockSpec) Run(seed int64, dir string, trace io.Writer) (Outcome, *sim.World) {
	w := sim.NewWorld(seed)
	w.SetTraceWriter(trace)
	o := Outcome{Seed: seed}
	fail := func(format string, args ...any) (Outcome, *sim.World) {
		o.Problem = fmt.Sprintf(format, args...)
		o.Summary = w.Summary()
		return o, w
	}
	d := services.Frangipani{Replicas: 3, Config: sp.Config}
	cc, err := d.Cluster()
	if err != nil {
		return fail("%v", err)
	}
	c, err := cluster.New(w, cc)
	if err != nil {
		return fail("%v", err)
	}
	for _, f := range []fault.Fault{{Kind: fault.Unreliable, On: sp.Unreliable}, {Kind: fault.Duplicate, Rate: sp.Duplicate}} {
		if err := c.Apply(f); err != nil {
			return fail("%v", err)
		}
	}
	var h linearize.History
	hosts := make([]*sim.Host, sp.Clients+sp.Readers)
	clerks := make([]*frangipani.Clerk, len(hosts))
	clients := make([]workload.KV, len(hosts))
	for i := range clients {
		hosts[i] = c.NewClient(fmt.Sprintf("clerk%d", i))
		if clerks[i], err = d.Clerk(c, hosts[i]); err != nil {
			return fail("%v", err)
		}
		clients[i] = linearize.Record(services.CachingKV{Clerk: clerks[i]}, &h, i, w.Now)
	}
	if sp.Drift != 0 {
		for i := range c.Hosts() {
			if err := c.Apply(fault.Fault{Kind: fault.Drift, Host: i, Rate: 1 + sp.Drift}); err != nil {
				return fail("%v", err)
			}
		}
		for _, hc := range hosts {
			if err := c.Apply(fault.Fault{Kind: fault.Drift, Host: c.HostIndex(hc), Rate: 1 - sp.Drift}); err != nil {
				return fail("%v", err)
			}
		}
	}
	stopped := false
	if sp.Isolate {
		isolate(w, c, hosts, 2*sp.Config.Lease, &stopped)
	}
	if sp.KillLeaders {
		killLeaders(w, c, &stopped)
	}
	keys := workload.Own()
	if sp.Keys > 0 {
		keys = workload.Uniform(sp.Keys)
	}
	think := cmp.Or(sp.Think, 5*time.Millisecond)
	runs := []*workload.Run{workload.Start(w, clients[:sp.Clients], workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: keys, Think: think})}
	if sp.Readers > 0 {
		runs = append(runs, workload.Start(w, clients[sp.Clients:], workload.Spec{Mix: workload.Mix{Get: 1}, Keys: keys, Think: think}))
	}
	w.Run(cmp.Or(sp.For, 10*time.Second))
	stopped = true
	if err := c.Recover(); err != nil {
		return fail("%v", err)
	}
	for _, r := range runs {
		r.Stop()
	}
	o.FaultLog = c.Log().String()
	o.Ops = h.Len()
	if !w.RunUntil(func() bool { return finished(runs) }, lockSettle) {
		return fail("the clients' last operations did not complete within %v of healing", lockSettle)
	}
	o.Summary = w.Summary()
	r, err := linearize.Check(linearize.KVModel(), h.Operations(), c.Log(), checkTimeout, dir, fmt.Sprintf("%s-seed%d", sp.Name, seed))
	if err != nil {
		return fail("writing the visualization: %v", err)
	}
	o.HTML = r.HTML
	if !r.OK() {
		return fail("%s", r.Problem())
	}
	for i, ck := range clerks {
		if n := ck.Lost(); n > 0 {
			return fail("clerk %d lost the unflushed writes of %d locks", i, n)
		}
	}
	return o, w
}

// isolate cuts a random clerk off from every lock server for a random time
// up to most, then lets it back, again and again until stopped.
func isolate(w *sim.World, c *cluster.Cluster, hosts []*sim.Host, most time.Duration, stopped *bool) {
	var next func()
	next = func() {
		if *stopped {
			return
		}
		h := c.HostIndex(hosts[w.Rand().IntN(len(hosts))])
		away := w.RandDuration(0, most)
		must(c.Apply(fault.Fault{Kind: fault.Isolate, Host: h}))
		w.After(away, func() {
			must(c.Apply(fault.Fault{Kind: fault.Rejoin, Host: h}))
			w.After(w.RandDuration(100*time.Millisecond, time.Second), next)
		})
	}
	w.After(w.RandDuration(100*time.Millisecond, time.Second), next)
}

// killLeaders kills the lock service's leader every 1–3 s and restarts it
// within a second, until stopped.
func killLeaders(w *sim.World, c *cluster.Cluster, stopped *bool) {
	var next func()
	next = func() {
		if *stopped {
			return
		}
		if l, ok := c.Leader(0); ok {
			h := c.HostOf(0, l)
			must(c.Apply(fault.Fault{Kind: fault.Kill, Host: h}))
			w.After(w.RandDuration(0, time.Second), func() {
				if !*stopped {
					must(c.Apply(fault.Fault{Kind: fault.Restart, Host: h}))
				}
			})
		}
		w.After(w.RandDuration(time.Second, 3*time.Second), next)
	}
	w.After(w.RandDuration(time.Second, 3*time.Second), next)
}

func must(err error) {
	if err != nil {
		panic(err) // faults on the cluster's own hosts: a bug
	}
}
