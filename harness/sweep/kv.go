package sweep

import (
	"cmp"
	"io"
	"time"

	"github.com/replab/replab/chaos"
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

// The shape of the key/value scenarios.
const (
	kvServers    = 5
	kvClients    = 5
	kvKeys       = 5
	kvChaosFor   = 30 * time.Second
	kvSettle     = 2 * time.Minute
	checkTimeout = time.Minute
	// kvMaxEvents bounds a key/value scenario's events: about sixteen
	// times the most (62 357) that any of 200 seeds of kv-linearizability,
	// kv-readindex, kv-lease, kv-lease-elections or kv-lease-drift fired.
	// A seed past it fails as a storm: a planted bug's AppendEntries storm
	// once ran kv-lease-drift's seed 1 for minutes.
	kvMaxEvents = 1_000_000
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
	sc := onTestbed(sp.name, sp.description, sp.build)
	sc.plant = planter(sp, kvSpec.scenario, func(p *kvSpec, b Bug) bool { return b.plantRSM(&p.opts) })
	return sc
}

// build builds one seed's run.
func (sp kvSpec) build(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	think := cmp.Or(sp.think, 10*time.Millisecond)
	kv := &testbed.KV{
		Clerk: func(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV {
			ck := kvraft.MakeClerk(host, servers)
			ck.SetTimeout(sp.clerkTimeout)
			return ck
		},
		Clients: sp.clients, Readers: sp.readers,
		Spec: workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: workload.Uniform(sp.keys), Think: think},
	}
	return testbed.Run{
		Name: sp.name, Seed: seed, Trace: trace, Dir: dir,
		Deploy:   cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: sp.servers, Factory: kvdeploy.Factory(1000, sp.opts)}}},
		Network:  testbed.Network{Modes: chaos.Modes{Unreliable: !sp.reliable}},
		Workload: kv,
		Nemesis:  testbed.Nemesis{Reactive: func(e *testbed.Env) (func(), error) { return sp.nemesis(e.World, e.Cluster) }},
		Length:   cmp.Or(sp.chaosFor, kvChaosFor),
		Settle:   kvSettle,
		Checks:   []testbed.Check{kv.Linearizable(checkTimeout)}, MaxEvents: kvMaxEvents,
	}, nil
}
