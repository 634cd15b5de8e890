package sweep

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
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
)

// The shape of the transaction scenarios.
const (
	txnChaosFor = 10 * time.Second
	txnSettle   = 30 * time.Second // the bound on finishing everything after healing
	txnClients  = 5
	txnAccounts = 5
	txnBalance  = 100 // each account's opening balance
	// txnProgress bounds a fresh client's first committed read after
	// settling: two of shardtxn's 5 s transaction timeouts.
	txnProgress = 10 * time.Second
	// txnNemesisStream numbers the random stream the random nemesis is
	// drawn from.
	txnNemesisStream = 0x7478
)

// A TxnSpec is a transaction scenario on shardtxn: three shard groups and
// a coordinator group of three replicas each, on three shared hosts (paper
// 000's containers), and a random nemesis of partitions, kills and
// restarts for 10 s; then everything heals. Within 30 s every transaction
// must end and every lock and the coordinator's table drain; then the
// history is checked. The list scenario runs on an unreliable network
// (lost and delayed messages); the bank's on a LAN, since its transfers
// and reads of every account lock each other out when each message may
// wait 27 ms (about 5 operations a second in all, against 180 on a LAN);
// its clients pause up to 100 ms between operations, to keep a seed cheap.
type TxnSpec struct {
	Name, Description string
	Config            shardtxn.Config
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

// txnScenarios are shardtxn's scenarios with its default configuration,
// snapshotting often, then each again under each of paper 003's variants.
func txnScenarios() []Scenario {
	base := []TxnSpec{
		{Name: "txn-lists", Description: "Sharded 2PC/2PL transactions of list appends and reads (3 shards and a coordinator group on 3 shared hosts), unreliable network, random partitions, kills and restarts, snapshots; txncheck for strict serializability, and every lock released, at the end."},
		{Name: "txn-outages", Description: "Sharded 2PC/2PL transactions of list appends and reads, every replica on a host of its own, the coordinators cut off from the shards again and again for 1-8 s (past the 5 s transaction timeout); txncheck for strict serializability, and every lock released, at the end.", Outages: true},
		{Name: "txn-leader-outages", Description: "Sharded 2PC/2PL transactions of list appends and reads, every replica on a host of its own, the coordinator leader (and the shards) cut off from the other coordinators again and again for 1-8 s, so that it decides but cannot replicate its decisions; txncheck for strict serializability, and every lock released, at the end.", LeaderOutages: true},
		{Name: "txn-bank", Description: "Sharded 2PC/2PL bank transfers across shards and reads of every balance, random partitions, kills and restarts, snapshots; every read must add up to the total, and every lock be released, at the end.", Bank: true},
	}
	var out []Scenario
	for i, v := range txntest.Variants() {
		for _, sp := range base {
			sp.Config = v.With(TxnConfig())
			if i > 0 {
				sp.Name += "-" + v.Short
				sp.Description += " " + v.Description
			}
			out = append(out, sp.Scenario())
		}
	}
	// Paper 003's whole design finds leaders through its replica manager:
	// the lists and the leader outages again, so.
	last := txntest.Variants()[len(txntest.Variants())-1]
	for _, sp := range []TxnSpec{base[0], base[2]} {
		sp.Config = last.With(TxnConfig())
		sp.Config.Discovery = shardtxn.ReplicaManager
		sp.Name += "-" + last.Short + "-rm"
		sp.Description += " " + last.Description + " Clients and servers find each group's leader through the replica manager, a directory the leaders announce themselves to (outside the faults)."
		out = append(out, sp.Scenario())
	}
	return out
}

// TxnConfig is the configuration of the transaction scenarios: shardtxn's
// default, with snapshots once a replica's Raft state reaches 8 KB, so
// that restarts restore the tables from snapshots.
func TxnConfig() shardtxn.Config {
	cfg := shardtxn.DefaultConfig()
	cfg.RSM.MaxRaftState = 8 << 10
	return cfg
}

// Scenario returns the spec as a scenario.
func (sp TxnSpec) Scenario() Scenario {
	return Scenario{Name: sp.Name, Description: sp.Description, Run: func(seed int64, dir string, trace io.Writer) Outcome {
		return outcome(sp.Run(seed, dir, trace))
	}, plant: planter(sp, TxnSpec.Scenario, func(p *TxnSpec, b Bug) bool { return b.plantShardTxn(&p.Config) })}
}

// Run runs one seed and returns its record.
func (sp TxnSpec) Run(seed int64, dir string, trace io.Writer) (*testbed.Record, error) {
	dep := txntest.Deployment{Shards: 3, Replicas: 3, Shared: !sp.Outages && !sp.LeaderOutages, Config: sp.Config}
	length := cmp.Or(sp.ChaosFor, txnChaosFor)
	modes := chaos.Modes{Unreliable: !sp.Bank}
	n := testbed.Nemesis{Reactive: sp.outages}
	if !sp.Outages && !sp.LeaderOutages {
		var err error
		if n, err = txnRandomNemesis(seed, dep.Hosts(), length, modes); err != nil {
			return nil, err
		}
	}
	r, err := shardTxnRun(sp.Name, seed, dep, txnLoad(sp.Bank, txnClients))
	if err != nil {
		return nil, err
	}
	r.Network.Modes, r.Nemesis, r.Length, r.Dir, r.Trace = modes, n, length, dir, trace
	return r.Execute()
}

// txnLoad is the transaction scenarios' workload of clients: list appends
// and reads of 6 keys, or bank transfers and reads of every balance, each
// client pausing up to 100 ms between its operations.
func txnLoad(bank bool, clients int) *testbed.Txn {
	t := &testbed.Txn{Clients: clients, Lists: workload.ListSpec{Keys: 6, MaxOps: 4, Reads: 0.5, Think: 10 * time.Millisecond}, Balance: txnBalance}
	if bank {
		t.Bank = &workload.BankSpec{Accounts: txnAccounts, MaxAmount: 30, Reads: 0.5, Think: 100 * time.Millisecond}
	}
	return t
}

// shardTxnRun returns the run of load on dep, without its network,
// nemesis or length: every transaction must end and every lock and the
// coordinator's table drain within txnSettle of the last heal, a fresh
// client's read must commit within txnProgress of that, and then load's
// history is checked (the lists with the order the shards installed each
// key's values in).
func shardTxnRun(name string, seed int64, dep txntest.Deployment, load *testbed.Txn) (testbed.Run, error) {
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
		return txntest.Client{Clerk: txntest.Clerk(c, name)}, nil
	}
	load.Open = func(e *testbed.Env, accounts int, balance int64) error {
		return openAccounts(e.World, e.Cluster, accounts, balance)
	}
	return testbed.Run{
		Name: name, Seed: seed, Deploy: cfg, Workload: load,
		Settle: txnSettle, Progress: txnProgress,
		Drains: []testbed.Drain{{
			Holds: func(e *testbed.Env) bool { return dep.Drained(e.Cluster) },
			Says: func(e *testbed.Env) string {
				return "locks or the coordinator's table did not drain (" + dep.Undrained(e.Cluster) + ")"
			},
		}},
		Checks: []testbed.Check{load.Check()},
	}, nil
}

// outages starts the spec's outages (Outages or LeaderOutages) and
// returns what stops them.
func (sp TxnSpec) outages(e *testbed.Env) (func(), error) {
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
		if sp.LeaderOutages {
			leader, ok := c.Leader(0)
			if !ok {
				w.After(100*time.Millisecond, outage)
				return
			}
			others := slices.Delete(slices.Clone(coords), leader, leader+1)
			groups = [][]int{append([]int{coords[leader]}, shards...), others}
		}
		must(c.Apply(fault.Fault{Kind: fault.Partition, Groups: groups}))
		w.After(w.RandDuration(time.Second, 8*time.Second), func() {
			must(c.Apply(fault.Fault{Kind: fault.Heal}))
			w.After(w.RandDuration(0, time.Second), outage)
		})
	}
	w.After(w.RandDuration(0, time.Second), outage)
	return func() { stopped = true }, nil
}

// txnRandomNemesis draws, from seed's stream of its own, random faults of
// every kind on hosts, one every 400 ms on average, for length.
func txnRandomNemesis(seed int64, hosts int, length time.Duration, modes chaos.Modes) (testbed.Nemesis, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), txnNemesisStream))
	steps, err := chaos.Generate(rng, hosts, chaos.NemesisConfig{Interval: 400 * time.Millisecond, Weights: chaos.DefaultWeights()}, length, modes)
	return testbed.Nemesis{Schedule: steps}, err
}

// openAccounts sets every account to its opening balance in one
// transaction, before the faults begin.
func openAccounts(w *sim.World, c *cluster.Cluster, accounts int, balance int64) error {
	ck := txntest.Clerk(c, "bank")
	ops := make([]shardtxn.Op, accounts)
	for a := range ops {
		ops[a] = shardtxn.Set(txntest.Account(a), fmt.Sprint(balance))
	}
	var out *shardtxn.Outcome
	if err := ck.Txn(ops, func(o shardtxn.Outcome) { out = &o }); err != nil {
		return err
	}
	if !w.RunUntil(func() bool { return out != nil }, txnSettle) || !out.Committed {
		return fmt.Errorf("opening the accounts did not commit")
	}
	return nil
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
