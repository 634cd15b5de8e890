package txntest

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim"
)

// The shape of the transaction scenarios.
const (
	// ChaosFor is how long the clients run under faults.
	ChaosFor = 10 * time.Second
	// Settle bounds finishing everything after healing.
	Settle = 30 * time.Second
	// Clients is how many clients run.
	Clients = 5
	// Accounts is how many accounts the bank has, each opening with
	// Balance.
	Accounts = 5
	Balance  = 100
	// Progress bounds a fresh client's first committed read after
	// settling: two of shardtxn's 5 s transaction timeouts.
	Progress = 10 * time.Second
	// nemesisStream numbers the random stream the random nemesis is
	// drawn from.
	nemesisStream = 0x7478
)

// A Spec is a transaction scenario on shardtxn: three shard groups and
// a coordinator group of three replicas each, on three shared hosts (paper
// 000's containers), and a random nemesis of partitions, kills and
// restarts for 10 s; then everything heals. Within 30 s every transaction
// must end and every lock and the coordinator's table drain; then the
// history is checked. The list scenario runs on an unreliable network
// (lost and delayed messages); the bank's on a LAN, since its transfers
// and reads of every account lock each other out when each message may
// wait 27 ms (about 5 operations a second in all, against 180 on a LAN);
// its clients pause up to 100 ms between operations, to keep a seed cheap.
type Spec struct {
	Name   string
	Config shardtxn.Config
	// Bank runs bank transfers and reads of every balance, checked for the
	// bank invariant; false runs list-append transactions, checked for
	// strict serializability.
	Bank bool
	// Outages, instead of the random nemesis, cuts the coordinators off
	// from the shards again and again, each time for 1–8 s, every replica
	// on a host of its own: cohorts wait that long for decisions, past the
	// transaction timeout.
	Outages bool
	// LeaderOutages, instead of the random nemesis, cuts the coordinator
	// leader, with the shards, off from the other coordinators again and
	// again, each time for 1–8 s, every replica on a host of its own: the
	// leader prepares and decides, but cannot replicate its decisions.
	LeaderOutages bool
	// ChaosFor is how long the clients run under faults before everything
	// heals: 0 is the scenarios' 10 s. Tests shorten it.
	ChaosFor time.Duration
}

// Config is the configuration of the transaction scenarios: shardtxn's
// default, with snapshots once a replica's Raft state reaches 8 KB, so
// that restarts restore the tables from snapshots.
func Config() shardtxn.Config {
	cfg := shardtxn.DefaultConfig()
	cfg.RSM.MaxRaftState = 8 << 10
	return cfg
}

// Build builds one seed's run, without carrying it out.
func (sp Spec) Build(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	dep := Deployment{Shards: 3, Replicas: 3, Shared: !sp.Outages && !sp.LeaderOutages, Config: sp.Config}
	length := cmp.Or(sp.ChaosFor, ChaosFor)
	modes := chaos.Modes{Unreliable: !sp.Bank}
	n := testbed.Nemesis{Reactive: Outages(sp.LeaderOutages)}
	if !sp.Outages && !sp.LeaderOutages {
		var err error
		if n, err = RandomNemesis(seed, dep.Hosts(), length, modes); err != nil {
			return testbed.Run{}, err
		}
	}
	r, err := dep.Run(sp.Name, seed, Load(sp.Bank, Clients))
	if err != nil {
		return testbed.Run{}, err
	}
	r.Network.Modes, r.Nemesis, r.Length, r.Dir, r.Trace = modes, n, length, dir, trace
	return r, nil
}

// Run runs one seed and returns its record (Build's run, carried out).
func (sp Spec) Run(seed int64, dir string, trace io.Writer) (*testbed.Record, error) {
	r, err := sp.Build(seed, dir, trace)
	if err != nil {
		return nil, err
	}
	return r.Execute()
}

// Load is the transaction scenarios' workload of clients: list appends
// and reads of 6 keys, or bank transfers and reads of every balance, each
// client pausing up to 100 ms between its operations.
func Load(bank bool, clients int) *testbed.Txn {
	t := &testbed.Txn{Clients: clients, Lists: workload.ListSpec{Keys: 6, MaxOps: 4, Reads: 0.5, Think: 10 * time.Millisecond}, Balance: Balance}
	if bank {
		t.Bank = &workload.BankSpec{Accounts: Accounts, MaxAmount: 30, Reads: 0.5, Think: 100 * time.Millisecond}
	}
	return t
}

// Run returns the run of load on d, called name, without its network,
// nemesis or length: every transaction must end and every lock and the
// coordinator's table drain within Settle of the last heal, a fresh
// client's read must commit within Progress of that, and then load's
// history is checked (the lists with the order the shards installed each
// key's values in).
func (dep Deployment) Run(name string, seed int64, load *testbed.Txn) (testbed.Run, error) {
	if load.Bank == nil {
		var order installs
		dep.Setup = func(_ int, s *shardtxn.ShardServer) { s.OnInstall(order.record) }
		load.Order = func(h *txncheck.History) { order.into(h) }
	}
	cfg, err := dep.Cluster()
	if err != nil {
		return testbed.Run{}, err
	}
	load.Client = func(c *cluster.Cluster, name string) (workload.TxnClient, error) {
		return Client{Clerk: Clerk(c, name)}, nil
	}
	load.Open = func(e *testbed.Env, accounts int, balance int64) error {
		return openAccounts(e.World, e.Cluster, accounts, balance)
	}
	return testbed.Run{
		Name: name, Seed: seed, Deploy: cfg, Workload: load,
		Settle: Settle, Progress: Progress,
		Drains: []testbed.Drain{{
			Holds: func(e *testbed.Env) bool { return dep.Drained(e.Cluster) },
			Says: func(e *testbed.Env) string {
				return "locks or the coordinator's table did not drain (" + dep.Undrained(e.Cluster) + ")"
			},
		}},
		Checks: []testbed.Check{load.Check()},
	}, nil
}

// Outages returns a nemesis that cuts the coordinators off from the
// shards again and again, each time for 1–8 s, or, if leader, the
// coordinator leader with the shards off from the other coordinators
// (it decides, but cannot replicate its decisions); every replica must
// be on a host of its own. The nemesis returns what stops it.
func Outages(leader bool) func(e *testbed.Env) (func(), error) {
	return func(e *testbed.Env) (func(), error) { return outages(e, leader) }
}

func outages(e *testbed.Env, leader bool) (func(), error) {
	w, c := e.World, e.Cluster
	var coords, shards []int
	for i := range c.Replicas(0) {
		coords = append(coords, c.HostOf(0, i))
	}
	for g := 1; g < c.Groups(); g++ {
		for i := range c.Replicas(g) {
			shards = append(shards, c.HostOf(g, i))
		}
	}
	stopped := false
	var outage func()
	outage = func() {
		if stopped {
			return
		}
		groups := [][]int{coords, shards}
		if leader {
			leader, ok := c.Leader(0)
			if !ok {
				w.After(100*time.Millisecond, outage)
				return
			}
			others := slices.Delete(slices.Clone(coords), leader, leader+1)
			groups = [][]int{append([]int{coords[leader]}, shards...), others}
		}
		must(c.Apply(fault.Fault{Kind: fault.Partition, Groups: groups}))
		w.After(sim.Duration(w.Stream("nemesis"), time.Second, 8*time.Second), func() {
			must(c.Apply(fault.Fault{Kind: fault.Heal}))
			w.After(sim.Duration(w.Stream("nemesis"), 0, time.Second), outage)
		})
	}
	w.After(sim.Duration(w.Stream("nemesis"), 0, time.Second), outage)
	return func() { stopped = true }, nil
}

// RandomNemesis draws, from seed's stream of its own, random faults of
// every kind on hosts, one every 400 ms on average, for length.
func RandomNemesis(seed int64, hosts int, length time.Duration, modes chaos.Modes) (testbed.Nemesis, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), nemesisStream))
	steps, err := chaos.Generate(rng, hosts, chaos.NemesisConfig{Interval: 400 * time.Millisecond, Weights: chaos.DefaultWeights()}, length, modes)
	return testbed.Nemesis{Schedule: steps}, err
}

// openAccounts sets every account to its opening balance in one
// transaction, before the faults begin.
func openAccounts(w *sim.World, c *cluster.Cluster, accounts int, balance int64) error {
	ck := Clerk(c, "bank")
	ops := make([]shardtxn.Op, accounts)
	for a := range ops {
		ops[a] = shardtxn.Set(Account(a), fmt.Sprint(balance))
	}
	// An aborted try (a prepare lost on a lossy network, past a short
	// transaction timeout) changed nothing: try again after a pause, as
	// the clients do, until Settle has passed.
	deadline := w.Now() + Settle
	for tries := 1; ; tries++ {
		var out *shardtxn.Outcome
		if err := ck.Txn(ops, func(o shardtxn.Outcome) { out = &o }); err != nil {
			return err
		}
		if !w.RunUntil(func() bool { return out != nil }, deadline-w.Now()) {
			return fmt.Errorf("opening the accounts did not end within %v (try %d)", Settle, tries)
		}
		if out.Committed {
			return nil
		}
		if w.Run(w.RandDuration(0, 100*time.Millisecond)); w.Now() >= deadline {
			return fmt.Errorf("opening the accounts did not commit within %v (%d tries aborted)", Settle, tries)
		}
	}
}

// installs are the versions of each list key in the order its shard
// installed them, as every replica reports them: a list's n-th element is
// its n-th version, whichever replica reports it first (they all apply the
// same log; one restored from a snapshot reports the whole list when it
// next installs, so nothing is skipped).
type installs map[int][]int

// record hears of a write a shard installed (ShardServer.OnInstall).
func (in *installs) record(key, value string, del bool) {
	k, err := strconv.Atoi(strings.TrimPrefix(key, "k"))
	if err != nil || del || !strings.HasPrefix(key, "k") {
		return
	}
	if *in == nil {
		*in = installs{}
	}
	elems := strings.Fields(value)
	for _, e := range elems[min(len((*in)[k]), len(elems)):] {
		v, _ := strconv.Atoi(e)
		(*in)[k] = append((*in)[k], v)
	}
}

// into gives h the install order of every key, in key order.
func (in installs) into(h *txncheck.History) {
	for _, k := range slices.Sorted(maps.Keys(in)) {
		for _, v := range in[k] {
			h.Installed(k, v)
		}
	}
}
