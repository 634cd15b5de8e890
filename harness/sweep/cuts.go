package sweep

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
)

// The shape of the one-way cut scenarios.
const (
	// cutsCalm is how long the clients run before the first cut; its
	// busiest second is the run's baseline of events.
	cutsCalm = 2 * time.Second
	// cutsRate bounds the events of any second of a run, after the
	// baseline, as a multiple of the baseline's (see rate).
	cutsRate = 2
)

// cutScenario returns a transaction scenario on shardtxn with cfg whose
// nemesis cuts one-way links between the coordinators and the shards.
// After 2 s of calm, again and again, one shard group's leader (a random
// replica of the group when none leads) stops hearing every coordinator,
// or stops being heard by them (each direction as likely), for 1–8 s,
// past the 5 s transaction timeout; then the links heal for up to a
// second. Every replica is on a host of its own, on an unreliable
// network, snapshotting every 8 KB. A shard that hears its coordinator
// but cannot answer is the case that once flooded its own log: each of
// the coordinator's retries became a log entry, and the retries, one
// series per transaction decided, never stopped.
//
// The faults then heal, and as in txntest.Spec every transaction must end
// and every lock and the coordinator's table drain within 30 s, and
// txncheck must find the list appends strictly serializable. Besides, no
// second of the run, from the end of the calm to the end of the run, may
// see more than twice the events of the calm's busiest second (see
// rate).
func cutScenario(name, description string, cfg shardtxn.Config) Scenario {
	sc := onTestbed(name, description, func(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
		return buildCuts(name, cfg, seed, dir, trace)
	})
	sc.plant = planter(cfg, func(c shardtxn.Config) Scenario { return cutScenario(name, description, c) },
		func(c *shardtxn.Config, b Bug) bool { return b.plantShardTxn(c) })
	return sc
}

// cutScenarios are the cut scenarios: under paper 000's design, and
// paper 003's with its replica manager, which is where the flood was
// found.
func cutScenarios() []Scenario {
	acid := txntest.Variants()[len(txntest.Variants())-1]
	rm := acid.With(txntest.Config())
	rm.Discovery = shardtxn.ReplicaManager
	desc := "Sharded transactions of list appends and reads, every replica on a host of its own, unreliable network, one-way cuts between a shard group's leader and every coordinator, in either direction, for 1-8 s (past the 5 s transaction timeout), again and again; txncheck for strict serializability, every lock released at the end, and no second of the run with more than twice the events of the busiest second before the cuts."
	return []Scenario{
		cutScenario("txn-cuts", desc+" "+txntest.Variants()[0].Description, txntest.Config()),
		cutScenario("txn-cuts-acid-rm", desc+" "+acid.Description+" Clients and servers find each group's leader through the replica manager.", rm),
	}
}

// buildCuts builds one seed's run of the cut scenario called name on cfg.
func buildCuts(name string, cfg shardtxn.Config, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	dep := txntest.Deployment{Shards: 3, Replicas: 3, Config: cfg}
	r, err := dep.Run(name, seed, txntest.Load(false, txntest.Clients))
	if err != nil {
		return testbed.Run{}, err
	}
	rt := &rate{}
	// A run past the bound stops waiting to drain: its verdict is in.
	drained := r.Drains[0].Holds
	r.Drains[0].Holds = func(e *testbed.Env) bool { return rt.problem() != "" || drained(e) }
	r.Checks = append([]testbed.Check{func(*testbed.Env) (testbed.Verdict, error) {
		return testbed.Verdict{Problem: rt.problem(), Kind: testbed.KindStorm}, nil
	}}, r.Checks...)
	r.Network.Modes = chaos.Modes{Unreliable: true}
	r.Nemesis.Reactive = func(e *testbed.Env) (func(), error) {
		rt.w = e.World
		rt.sample()
		return cutNemesis(e.World, e.Cluster)
	}
	r.Length, r.Dir, r.Trace = txntest.ChaosFor, dir, trace
	return r, nil
}

// cutNemesis cuts, after cutsCalm, one shard group's leader off from
// every coordinator in one direction, again and again (see cutScenario),
// and returns what stops it.
func cutNemesis(w *sim.World, c *cluster.Cluster) (func(), error) {
	var coords []int
	for i := range c.Replicas(0) {
		coords = append(coords, c.HostOf(0, i))
	}
	stopped := false
	var cut func()
	cut = func() {
		if stopped {
			return
		}
		g := 1 + w.Stream("nemesis").IntN(c.Groups()-1)
		i, ok := c.Leader(g)
		if !ok {
			i = w.Stream("nemesis").IntN(c.Replicas(g))
		}
		shard, deaf := c.HostOf(g, i), w.Stream("nemesis").IntN(2) == 0
		for _, coord := range coords {
			f := fault.Fault{Kind: fault.Cut, Host: shard, To: coord} // the shard's answers and questions are lost
			if deaf {
				f.Host, f.To = coord, shard // the coordinators' calls and answers are lost
			}
			must(c.Apply(f))
		}
		w.After(sim.Duration(w.Stream("nemesis"), time.Second, 8*time.Second), func() {
			must(c.Apply(fault.Fault{Kind: fault.Heal}))
			w.After(sim.Duration(w.Stream("nemesis"), 0, time.Second), cut)
		})
	}
	w.After(cutsCalm, cut)
	return func() { stopped = true }, nil
}

// A rate counts a world's events a second, from its start, and finds a
// run whose events grow without bound: a second, after the calm, with
// more than cutsRate times the events of the calm's busiest second.
//
// The rule: the clients bound the work a run asks for (five of them, one
// transaction each at a time, 10 ms apart), and the calm's busiest second
// is that work at full speed (the busiest, because a group may still be
// electing its leader in one of them). A fault can only slow it (a
// client waits for an answer that does not come, then its transaction
// aborts) or bunch it (what waited goes at once when the fault heals, at
// most what the clients had started, which the next second absorbs). A
// second with twice the calm's events is work nobody asked for: retries
// that multiply, or log entries that each retry adds. So it was while a
// shard flooded its own log: on these scenarios' seeds a second's events
// grew by hundreds every second of a cut, and half the seeds passed
// twice the calm's (53 and 57 of the first 100); since, the busiest
// second of the first 400 seeds of each had 1.54 times the calm's events
// at most, and most of them fewer than the calm.
type rate struct {
	w         *sim.World
	last      uint64   // the world's events when the last second ended
	seconds   []uint64 // the events of each second
	violation string
}

// sample records the events of each second, for as long as the world
// runs.
func (r *rate) sample() {
	r.w.After(time.Second, func() {
		now := r.w.Events()
		r.seconds = append(r.seconds, now-r.last)
		r.last = now
		calm := int(cutsCalm / time.Second)
		if n := len(r.seconds); n > calm && r.violation == "" {
			base := slices.Max(r.seconds[:calm])
			if got := r.seconds[n-1]; got > cutsRate*base {
				r.violation = fmt.Sprintf("storm: %d events in second %d of the run, more than %d times the %d of the busiest second before the cuts", got, n, cutsRate, base)
			}
		}
		r.sample()
	})
}

// problem says how the run broke the bound, or "".
func (r *rate) problem() string { return r.violation }
