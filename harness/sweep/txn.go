package sweep

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim"
)

// The shape of the transaction scenarios.
const (
	txnChaosFor = 10 * time.Second
	txnSettle   = 30 * time.Second // the bound on finishing everything after healing
	txnClients  = 5
	txnAccounts = 5
	txnBalance  = 100 // each account's opening balance
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
	for i, v := range services.TxnVariants() {
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
	last := services.TxnVariants()[len(services.TxnVariants())-1]
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
		o, _ := sp.Run(seed, dir, trace)
		return o
	}, plant: planter(sp, TxnSpec.Scenario, func(p *TxnSpec, b Bug) bool { return b.plantShardTxn(&p.Config) })}
}

// Run runs one seed and returns its outcome and its world (whose summary a
// test compares with a replay's; nil if the deployment cannot be built).
func (sp TxnSpec) Run(seed int64, dir string, trace io.Writer) (Outcome, *sim.World) {
	dep := services.ShardTxn{Shards: 3, Replicas: 3, Shared: !sp.Outages && !sp.LeaderOutages, Config: sp.Config}
	var order installs
	if !sp.Bank {
		dep.Setup = func(_ int, s *shardtxn.ShardServer) { s.OnInstall(order.record) }
	}
	c, o := txnCluster(seed, trace, dep.Cluster)
	if c == nil {
		return o, nil
	}
	clients := make([]workload.TxnClient, txnClients)
	for i := range clients {
		clients[i] = services.TxnClient{Clerk: services.ShardTxnClerk(c, fmt.Sprintf("client%d", i))}
	}
	return txnRun{
		name: sp.Name, bank: sp.Bank, c: c, clients: clients,
		open:    func() error { return openAccounts(c.World(), c) },
		drained: func() bool { return dep.Drained(c) }, undrained: func() string { return "locks or the coordinator's table did not drain (" + dep.Undrained(c) + ")" },
		nemesis: sp.nemesis, order: &order, chaosFor: sp.ChaosFor,
	}.run(o, dir)
}

// txnCluster builds a scenario's world from seed, tracing into trace, and
// the cluster layout describes on it; if it cannot, it returns a nil
// cluster and an outcome that says why.
func txnCluster(seed int64, trace io.Writer, layout func() (cluster.Config, error)) (*cluster.Cluster, Outcome) {
	w := sim.NewWorld(seed)
	w.SetTraceWriter(trace)
	cfg, err := layout()
	if err == nil {
		var c *cluster.Cluster
		if c, err = cluster.New(w, cfg); err == nil {
			return c, Outcome{Seed: seed}
		}
	}
	return nil, Outcome{Seed: seed, Problem: err.Error(), Summary: w.Summary()}
}

// A txnRun is the part of a transaction scenario both designs share: its
// clients run list appends (on an unreliable network) or bank transfers
// and reads (on a LAN) under a random nemesis for chaosFor (0:
// txnChaosFor); then everything heals, and within txnSettle the clients
// must finish and drained must hold; then settled (if set) and the
// history are checked.
type txnRun struct {
	name      string
	bank      bool
	c         *cluster.Cluster
	clients   []workload.TxnClient
	open      func() error // opens the bank's accounts
	drained   func() bool
	undrained func() string // says what did not drain
	settled   func() string // a problem found once drained, or ""
	// nemesis, if set, starts the faults instead of the random nemesis,
	// and returns what stops them.
	nemesis  func(w *sim.World, c *cluster.Cluster) (func(), error)
	order    *installs // if set, the lists' install order, given to txncheck
	chaosFor time.Duration
}

// run runs the scenario on o's seed's world, the cluster's.
func (r txnRun) run(o Outcome, dir string) (Outcome, *sim.World) {
	w := r.c.World()
	fail := func(format string, args ...any) (Outcome, *sim.World) {
		o.Problem = fmt.Sprintf(format, args...)
		o.Summary = w.Summary()
		return o, w
	}
	var lists txncheck.History
	var accounts bank.History
	var run *workload.Run
	if r.bank {
		if err := r.open(); err != nil {
			return fail("%v", err)
		}
		run = workload.StartBank(w, r.clients, workload.BankSpec{Accounts: txnAccounts, MaxAmount: 30, Reads: 0.5, Think: 100 * time.Millisecond}, &accounts)
	} else {
		run = workload.StartLists(w, r.clients, workload.ListSpec{Keys: 6, MaxOps: 4, Reads: 0.5, Think: 10 * time.Millisecond}, &lists)
	}
	if err := r.c.Apply(fault.Fault{Kind: fault.Unreliable, On: !r.bank}); err != nil {
		return fail("%v", err)
	}
	nemesis := r.nemesis
	if nemesis == nil {
		nemesis = txnRandomNemesis
	}
	stop, err := nemesis(w, r.c)
	if err != nil {
		return fail("%v", err)
	}
	if r.chaosFor == 0 {
		r.chaosFor = txnChaosFor
	}
	w.Run(r.chaosFor)
	stop()
	if err := r.c.Recover(); err != nil {
		return fail("%v", err)
	}
	run.Stop()
	healed := w.Now()
	o.FaultLog = r.c.Log().String()
	if !w.RunUntil(run.Finished, txnSettle) {
		return fail("the clients' last transactions did not end within %v of healing", txnSettle)
	}
	if !w.RunUntil(r.drained, txnSettle-(w.Now()-healed)) {
		return fail("%s within %v of healing", r.undrained(), txnSettle)
	}
	o.Summary = w.Summary()
	if r.settled != nil {
		if problem := r.settled(); problem != "" {
			return fail("%s", problem)
		}
	}
	if r.bank {
		o.Ops = accounts.Len()
		res, err := bank.Check(&accounts, bank.Config{Accounts: txnAccounts, Total: txnAccounts * txnBalance})
		switch {
		case err != nil:
			return fail("%v", err)
		case !res.Valid:
			o.Problem = res.String()
		}
		return o, w
	}
	o.Ops = lists.Len()
	if r.order != nil {
		r.order.into(&lists)
	}
	res, err := txncheck.Check(&lists, txncheck.StrictSerializable)
	if err != nil {
		return fail("%v", err)
	}
	if !res.OK() {
		o.Problem = res.String()
		if dir != "" {
			o.HTML, _ = res.WriteHTML(dir, fmt.Sprintf("%s-seed%d", r.name, o.Seed), r.c.Log().Intervals(w.Now()))
		}
	}
	return o, w
}

// nemesis starts the spec's faults and returns what stops them.
func (sp TxnSpec) nemesis(w *sim.World, c *cluster.Cluster) (func(), error) {
	if !sp.Outages && !sp.LeaderOutages {
		return txnRandomNemesis(w, c)
	}
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
		if err := c.Apply(fault.Fault{Kind: fault.Partition, Groups: groups}); err != nil {
			panic(err) // the hosts are the cluster's own
		}
		w.After(w.RandDuration(time.Second, 8*time.Second), func() {
			if err := c.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
				panic(err)
			}
			w.After(w.RandDuration(0, time.Second), outage)
		})
	}
	w.After(w.RandDuration(0, time.Second), outage)
	return func() { stopped = true }, nil
}

// txnRandomNemesis applies random faults of every kind, one every 400 ms
// on average.
func txnRandomNemesis(_ *sim.World, c *cluster.Cluster) (func(), error) {
	n, err := c.Monkey().StartNemesis(chaos.NemesisConfig{Interval: 400 * time.Millisecond, Weights: chaos.DefaultWeights()})
	if err != nil {
		return nil, err
	}
	return n.Stop, nil
}

// openAccounts sets every account to its opening balance in one
// transaction, before the faults begin.
func openAccounts(w *sim.World, c *cluster.Cluster) error {
	ck := services.ShardTxnClerk(c, "bank")
	ops := make([]shardtxn.Op, txnAccounts)
	for a := range ops {
		ops[a] = shardtxn.Set(services.Account(a), fmt.Sprint(txnBalance))
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
