package sweep

import (
	"cmp"
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// The shape of the key/value scenarios.
const (
	kvServers    = 5
	kvClients    = 5
	kvKeys       = 5
	kvChaosFor   = 30 * time.Second
	kvSettle     = 2 * time.Minute
	checkTimeout = time.Minute
)

// A kvSpec is the shape of one key/value scenario.
type kvSpec struct {
	name, description string
	opts              kvraft.Options
	servers           int
	clients, keys     int
	// readers are clients that only read, beside the clients' mix of
	// reads and writes: a reader that has a deposed leader's ear keeps
	// reading from it.
	readers      int
	clerkTimeout time.Duration
	// reliable runs the network as a LAN, without losses or long delays.
	reliable bool
	// think is the most a client pauses between operations (10 ms unless
	// set), and chaosFor how long the nemesis runs (30 s unless set).
	think, chaosFor time.Duration
	// nemesis starts the faults of a run; it returns what stops them.
	nemesis func(w *sim.World, c *cluster.Cluster) (stop func(), err error)
}

// kvScenario is the key/value linearizability hunt with the given read
// mode and the default random nemesis.
func kvScenario(name, description string, reads rsm.ReadMode) Scenario {
	return kvSpec{name: name, description: description, opts: kvraft.Options{Reads: reads, Raft: raft.LabConfig()}, servers: kvServers, clients: kvClients, keys: kvKeys, clerkTimeout: rsm.DefaultTimeout, nemesis: randomNemesis}.scenario()
}

// randomNemesis applies random faults of every kind, one every half second
// on average.
func randomNemesis(_ *sim.World, c *cluster.Cluster) (func(), error) {
	n, err := c.Monkey().StartNemesis(chaos.NemesisConfig{Interval: 500 * time.Millisecond, Weights: chaos.DefaultWeights()})
	if err != nil {
		return nil, err
	}
	return n.Stop, nil
}

func (sp kvSpec) scenario() Scenario {
	return Scenario{Name: sp.name, Description: sp.description, Run: func(seed int64, dir string, trace io.Writer) Outcome {
		return sp.run(seed, dir, trace)
	}, plant: planter(sp, kvSpec.scenario, func(p *kvSpec, b Bug) bool { return b.plantRSM(&p.opts) })}
}

func (sp kvSpec) run(seed int64, dir string, trace io.Writer) Outcome {
	name := sp.name
	w := sim.NewWorld(seed)
	w.SetTraceWriter(trace)
	o := Outcome{Seed: seed}
	fail := func(format string, args ...any) Outcome {
		o.Problem = fmt.Sprintf(format, args...)
		o.Summary = w.Summary()
		return o
	}
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: sp.servers, Factory: services.KV(1000, sp.opts)}}})
	if err != nil {
		return fail("%v", err)
	}
	if err := c.Apply(fault.Fault{Kind: fault.Unreliable, On: !sp.reliable}); err != nil {
		return fail("%v", err)
	}
	m := c.Monkey()
	stopNemesis, err := sp.nemesis(w, c)
	if err != nil {
		return fail("%v", err)
	}

	var h linearize.History
	clients := make([]workload.KV, sp.clients+sp.readers)
	for i := range clients {
		host := c.NewClient(fmt.Sprintf("clerk%d", i))
		ck := kvraft.MakeClerk(host, c.Ends(host, 0, nil))
		ck.SetTimeout(sp.clerkTimeout)
		clients[i] = linearize.Record(ck, &h, i, w.Now)
	}
	keys, think, chaosFor := workload.Uniform(sp.keys), cmp.Or(sp.think, 10*time.Millisecond), cmp.Or(sp.chaosFor, kvChaosFor)
	runs := []*workload.Run{workload.Start(w, clients[:sp.clients], workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: keys, Think: think})}
	if sp.readers > 0 {
		runs = append(runs, workload.Start(w, clients[sp.clients:], workload.Spec{Mix: workload.Mix{Get: 1}, Keys: keys, Think: think}))
	}
	w.Run(chaosFor)
	stopNemesis()
	if err := c.Recover(); err != nil {
		return fail("%v", err)
	}
	for _, r := range runs {
		r.Stop()
	}
	o.FaultLog = m.Log().String()
	o.Ops = h.Len()
	if !w.RunUntil(func() bool { return finished(runs) }, kvSettle) {
		return fail("the clients' last operations did not complete within %v of healing", kvSettle)
	}
	o.Summary = w.Summary()
	r, err := linearize.Check(linearize.KVModel(), h.Operations(), m.Log(), checkTimeout, dir, fmt.Sprintf("%s-seed%d", name, seed))
	if err != nil {
		return fail("writing the visualization: %v", err)
	}
	o.HTML = r.HTML
	if !r.OK() {
		o.Problem = r.Problem()
	}
	return o
}

// finished reports whether every run has finished.
func finished(runs []*workload.Run) bool {
	for _, r := range runs {
		if !r.Finished() {
			return false
		}
	}
	return true
}
