package sweep

import (
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/cluster"
	"github.com/replab/replab/fault"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/linearize"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/workload"
)

// The shape of the key/value scenarios.
const (
	kvServers    = 5
	kvClients    = 5
	kvKeys       = 5
	kvChaosFor   = 30 * time.Second
	kvSettle     = 2 * time.Minute
	checkTimeout = 20 * time.Second
)

// A kvSpec is the shape of one key/value scenario.
type kvSpec struct {
	name, description string
	opts              kvraft.Options
	servers           int
	clients, keys     int
	clerkTimeout      time.Duration
	// pinned clients each talk to one or two servers drawn at random, not
	// to all, drawn again every second.
	pinned bool
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
	}}
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
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: sp.servers, Factory: workload.KVServers(1000, sp.opts)}}})
	if err != nil {
		return fail("%v", err)
	}
	c.Net().Reliable(false)
	m := c.Monkey()
	stopNemesis, err := sp.nemesis(w, c)
	if err != nil {
		return fail("%v", err)
	}

	var h linearize.History
	stop, finished := false, 0
	var clerks []*sim.Host
	for i := range sp.clients {
		host := c.NewClient(fmt.Sprintf("clerk%d", i))
		raw := kvraft.MakeClerk(host, c.Ends(host, 0, nil))
		raw.SetTimeout(sp.clerkTimeout)
		clerks = append(clerks, host)
		ck := workload.NewKVClient(raw, &h, i)
		var step func()
		step = func() {
			if stop {
				finished++
				return
			}
			next := func() { w.After(w.RandDuration(0, 10*time.Millisecond), step) }
			key := fmt.Sprintf("k%d", w.Rand().IntN(sp.keys))
			switch w.Rand().IntN(3) {
			case 0:
				ck.Get(key, func(string, int64) { next() })
			case 1:
				ck.Put(key, fmt.Sprintf("%d.%d", i, h.Len()), next)
			default:
				ck.Append(key, fmt.Sprintf(" %d.%d", i, h.Len()), next)
			}
		}
		step()
	}

	if sp.pinned {
		var repin func()
		repin = func() {
			if stop {
				return
			}
			for _, ck := range clerks {
				c.Connect(ck, 0, w.Rand().Perm(sp.servers)[:1+w.Rand().IntN(2)])
			}
			w.After(time.Second, repin)
		}
		repin()
	}
	w.Run(kvChaosFor)
	stopNemesis()
	if err := m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
		return fail("%v", err)
	}
	for _, ck := range clerks {
		c.Connect(ck, 0, c.All(0))
	}
	for i, alive := range m.Alive() {
		if !alive {
			if err := m.Apply(fault.Fault{Kind: fault.Restart, Host: i}); err != nil {
				return fail("%v", err)
			}
		}
	}
	stop = true
	o.FaultLog = m.Log().String()
	o.Ops = h.Len()
	if !w.RunUntil(func() bool { return finished == sp.clients }, kvSettle) {
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
