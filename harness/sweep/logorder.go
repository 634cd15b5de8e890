package sweep

import (
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim"
)

// A LogOrderSpec is a transaction scenario on logorder, shaped as TxnSpec
// is for shardtxn so that the two designs meet the same workloads and
// faults: five nodes with 2-way replication (paper 004's availability
// setup), a random nemesis of partitions, kills and restarts for 10 s,
// then healing; within 30 s every transaction must end and every live node
// must have processed the whole log. Every node's decision of each tid is
// compared with every other's; then the history is checked: list appends
// for strict serializability (every transaction, read-only ones too, is
// validated at its place in the log), bank transfers for the bank
// invariant.
type LogOrderSpec struct {
	Name, Description string
	Config            logorder.Config
	Bank              bool
}

// logOrderScenarios are logorder's scenarios with LogOrderConfig.
func logOrderScenarios() []Scenario {
	return []Scenario{
		LogOrderSpec{Name: "logorder-lists", Description: "log-ordered optimistic transactions (paper 004) of list appends and reads, 5 nodes, 2-way replication, unreliable network, random partitions, kills and restarts, snapshots; every node's outcomes agree, txncheck for strict serializability", Config: LogOrderConfig()}.Scenario(),
		LogOrderSpec{Name: "logorder-bank", Description: "log-ordered bank transfers and reads of every balance, 5 nodes, 2-way replication, random partitions, kills and restarts, snapshots; every node's outcomes agree, every read adds up", Config: LogOrderConfig(), Bank: true}.Scenario(),
	}
}

// LogOrderConfig is the configuration of the logorder scenarios: five
// nodes, 2-way replication, each node snapshotting its state every 16
// tids, so that restarts restore from snapshots.
func LogOrderConfig() logorder.Config {
	cfg := logorder.DefaultConfig()
	cfg.Layout = logorder.DefaultLayout(5, 2)
	cfg.SnapshotEvery = 16
	return cfg
}

// Scenario returns the spec as a scenario.
func (sp LogOrderSpec) Scenario() Scenario {
	return Scenario{Name: sp.Name, Description: sp.Description, Run: func(seed int64, dir string, trace io.Writer) Outcome {
		o, _ := sp.Run(seed, dir, trace)
		return o
	}}
}

// Run runs one seed and returns its outcome and its world.
func (sp LogOrderSpec) Run(seed int64, dir string, trace io.Writer) (Outcome, *sim.World) {
	w := sim.NewWorld(seed)
	w.SetTraceWriter(trace)
	o := Outcome{Seed: seed}
	fail := func(format string, args ...any) (Outcome, *sim.World) {
		o.Problem = fmt.Sprintf(format, args...)
		o.Summary = w.Summary()
		return o, w
	}
	var agree agreement
	dep := services.LogOrder{Config: sp.Config, Setup: func(node int, s *logorder.Server) {
		s.OnDecide(func(tid int, out logorder.Outcome) { agree.add(node, tid, out) })
	}}
	cfg, err := dep.Cluster()
	if err != nil {
		return fail("%v", err)
	}
	c, err := cluster.New(w, cfg)
	if err != nil {
		return fail("%v", err)
	}
	clients := make([]workload.TxnClient, txnClients)
	for i := range clients {
		clients[i] = services.LogOrderClient{Clerk: services.LogOrderClerk(c, fmt.Sprintf("client%d", i), sp.Config.Layout)}
	}
	var lists txncheck.History
	var accounts bank.History
	var run *workload.Run
	if sp.Bank {
		if err := openLogOrderAccounts(w, c, sp.Config.Layout); err != nil {
			return fail("%v", err)
		}
		run = workload.StartBank(w, clients, workload.BankSpec{Accounts: txnAccounts, MaxAmount: 30, Reads: 0.5, Think: 100 * time.Millisecond}, &accounts)
	} else {
		run = workload.StartLists(w, clients, workload.ListSpec{Keys: 6, MaxOps: 4, Reads: 0.5, Think: 10 * time.Millisecond}, &lists)
	}
	c.Net().Reliable(sp.Bank)
	n, err := c.Monkey().StartNemesis(chaos.NemesisConfig{Interval: 400 * time.Millisecond, Weights: chaos.DefaultWeights()})
	if err != nil {
		return fail("%v", err)
	}
	w.Run(txnChaosFor)
	n.Stop()
	if err := c.Recover(); err != nil {
		return fail("%v", err)
	}
	run.Stop()
	healed := w.Now()
	o.FaultLog = c.Log().String()
	if !w.RunUntil(run.Finished, txnSettle) {
		return fail("the clients' last transactions did not end within %v of healing", txnSettle)
	}
	if !w.RunUntil(func() bool { return dep.Drained(c) }, txnSettle-(w.Now()-healed)) {
		return fail("the nodes did not all process the whole log within %v of healing", txnSettle)
	}
	o.Summary = w.Summary()
	if agree.problem != "" {
		return fail("%s", agree.problem)
	}
	if sp.Bank {
		o.Ops = accounts.Len()
		r, err := bank.Check(&accounts, bank.Config{Accounts: txnAccounts, Total: txnAccounts * txnBalance})
		switch {
		case err != nil:
			return fail("%v", err)
		case !r.Valid:
			o.Problem = r.String()
		}
		return o, w
	}
	o.Ops = lists.Len()
	r, err := txncheck.Check(&lists, txncheck.StrictSerializable)
	if err != nil {
		return fail("%v", err)
	}
	if !r.OK() {
		o.Problem = r.String()
		if dir != "" {
			o.HTML, _ = r.WriteHTML(dir, fmt.Sprintf("%s-seed%d", sp.Name, seed), c.Log().Intervals(w.Now()))
		}
	}
	return o, w
}

// An agreement holds the first decision any node made of each tid, and
// the first disagreement with it: every node that decides a tid must
// reach the same outcome.
type agreement struct {
	first   map[int]logorder.Outcome
	by      map[int]int
	problem string
}

func (a *agreement) add(node, tid int, o logorder.Outcome) {
	if a.first == nil {
		a.first, a.by = map[int]logorder.Outcome{}, map[int]int{}
	}
	old, ok := a.first[tid]
	switch {
	case !ok:
		a.first[tid], a.by[tid] = o, node
	case old != o && a.problem == "":
		a.problem = fmt.Sprintf("nodes disagree on tid %d: node %d decided %v, node %d %v", tid, a.by[tid], old, node, o)
	}
}

// openLogOrderAccounts sets every account to its opening balance in one
// transaction, before the faults begin.
func openLogOrderAccounts(w *sim.World, c *cluster.Cluster, layout logorder.Layout) error {
	ck := services.LogOrderClerk(c, "bank", layout)
	var out logorder.Outcome
	var err error
	ended := false
	ck.Begin(0, func(tx *logorder.Tx, e error) {
		if e != nil {
			err, ended = e, true
			return
		}
		for a := range txnAccounts {
			if e := tx.Put(services.LogOrderKey("acct", a), fmt.Sprint(txnBalance)); e != nil {
				err, ended = e, true
				return
			}
		}
		tx.Commit(func(_ int, o logorder.Outcome, e error) { out, err, ended = o, e, true })
	})
	if !w.RunUntil(func() bool { return ended }, txnSettle) || err != nil || out != logorder.Applied {
		return fmt.Errorf("opening the accounts did not commit: %v %v", out, err)
	}
	return nil
}
