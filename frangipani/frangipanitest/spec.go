package frangipanitest

import (
	"cmp"
	"io"
	"math/rand/v2"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/harness/workload"
)

// Settle bounds, from the last heal, every operation's end.
const Settle = 30 * time.Second

// CheckTimeout bounds porcupine's check of a history, in wall time.
const CheckTimeout = time.Minute

// Progress is the bound within which, after a heal, an operation begun
// then must complete, from cfg's own timeouts: a lease (a reader that
// missed its revocation stops serving), two elections of the lock
// service (servers restarted by the heal), two of a clerk's RPC timeouts
// (its call to a server that no longer leads) and a renewal.
func Progress(cfg frangipani.Config) time.Duration {
	return cfg.Lease + 2*cfg.RSM.Raft.ElectionMax + 2*cfg.RPCTimeout + cfg.RenewEvery
}

// Config is the configuration of the lock scenarios: frangipani's
// default, with snapshots once a replica's Raft state reaches 8 KB.
func Config() frangipani.Config {
	cfg := frangipani.DefaultConfig()
	cfg.RSM.MaxRaftState = 8 << 10
	return cfg
}

// A Spec is the shape of a lock scenario: three lock servers and caching
// clerks running Gets, Puts and Appends for For (10 s unless set) under
// the faults it names; then everything heals, every operation must
// complete within Settle, a fresh clerk must read within Progress, no
// clerk may have lost a write, and porcupine checks the history, key by
// key.
type Spec struct {
	// Name names the run, in file names and messages.
	Name    string
	Config  frangipani.Config
	Clients int
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

// nemesisStream is the random stream, beside the seed, from which a
// Spec's faults are drawn.
const nemesisStream = 0x6c6f636b73 // "locks"

// Build builds the spec's run for seed, writing a violation's drawing
// into dir and the event trace to trace (either may be unset), without
// carrying it out.
func (sp Spec) Build(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	cc, err := Deployment{Replicas: 3, Config: sp.Config}.Cluster()
	if err != nil {
		return testbed.Run{}, err
	}
	cs := &Clerks{Config: sp.Config}
	keys := workload.Own()
	if sp.Keys > 0 {
		keys = workload.Uniform(sp.Keys)
	}
	kv := &testbed.KV{Clerk: cs.Make, Clients: sp.Clients, Readers: sp.Readers,
		Spec: workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: keys, Think: cmp.Or(sp.Think, 5*time.Millisecond)}}
	length := cmp.Or(sp.For, 10*time.Second)
	clients := testbed.ClientHosts(cc, sp.Clients+sp.Readers)
	var n testbed.Nemesis
	if sp.Drift != 0 {
		n.Schedule = append(testbed.Clocks(1+sp.Drift, testbed.ServerHosts(cc)...), testbed.Clocks(1-sp.Drift, clients...)...)
	}
	if sp.Duplicate > 0 {
		n.Schedule = append(n.Schedule, chaos.Step{Fault: fault.Fault{Kind: fault.Duplicate, Rate: sp.Duplicate}})
	}
	if sp.Isolate {
		rng := rand.New(rand.NewPCG(uint64(seed), nemesisStream))
		steps, err := testbed.Isolations{Hosts: clients, Away: 2 * sp.Config.Lease, Gap: time.Second}.Generate(rng, 0, length)
		if err != nil {
			return testbed.Run{}, err
		}
		n.Schedule = append(n.Schedule, steps...)
	}
	if sp.KillLeaders {
		n.Reactive = testbed.LeaderKills{Gap: 3 * time.Second, Down: time.Second}.Start
	}
	return testbed.Run{
		Name: sp.Name, Seed: seed, Dir: dir, Trace: trace,
		Deploy:   cc,
		Network:  testbed.Network{Modes: chaos.Modes{Unreliable: sp.Unreliable}},
		Workload: kv, Nemesis: n,
		Length: length, Settle: Settle, Progress: Progress(sp.Config),
		Checks: []testbed.Check{kv.Linearizable(CheckTimeout), cs.NoneLost},
	}, nil
}

// Run runs one seed and returns its record (Build's run, carried out).
func (sp Spec) Run(seed int64, dir string, trace io.Writer) (*testbed.Record, error) {
	r, err := sp.Build(seed, dir, trace)
	if err != nil {
		return nil, err
	}
	return r.Execute()
}
