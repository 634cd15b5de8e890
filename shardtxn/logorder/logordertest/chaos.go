package logordertest

import (
	"cmp"
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
)

// A Spec is a transaction scenario on logorder, shaped as txntest.Spec
// is for shardtxn so that the two designs meet the same workloads and
// faults: five nodes with 2-way replication (paper 004's availability
// setup), a random nemesis of partitions, kills and restarts for 10 s,
// then healing; within 30 s every transaction must end and every live node
// must have processed the whole log. Every node's decision of each tid is
// compared with every other's; then the history is checked: list appends
// for strict serializability (every transaction, read-only ones too, is
// validated at its place in the log), bank transfers for the bank
// invariant.
type Spec struct {
	Name   string
	Config logorder.Config
	Bank   bool
	// Failover, instead of the random nemesis, kills the log's leader and
	// a follower in turn over paper 004's 150 s (see failover), with
	// progress checked after every restart.
	Failover bool
	// ChaosFor is how long the clients run under faults before everything
	// heals: 0 is the scenarios' 10 s (150 s with Failover). Tests shorten
	// it.
	ChaosFor time.Duration
}

// Config is the configuration of the logorder scenarios: five
// nodes, 2-way replication, each node snapshotting its state every 16
// tids, so that restarts restore from snapshots.
func Config() logorder.Config {
	cfg := logorder.DefaultConfig()
	cfg.Layout = logorder.DefaultLayout(5, 2)
	cfg.SnapshotEvery = 16
	return cfg
}

// FailoverConfig is the configuration of logorder-failover: the
// scenarios' with snapshots every 128 tids and versions kept for 256, so
// that a node down for seconds comes back further behind than that.
func FailoverConfig() logorder.Config {
	cfg := Config()
	cfg.SnapshotEvery, cfg.Versions = 128, 256
	return cfg
}

// Build builds one seed's run, without carrying it out.
func (sp Spec) Build(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	r, err := Run(sp.Name, seed, sp.Config, txntest.Load(sp.Bank, txntest.Clients))
	if err != nil {
		return testbed.Run{}, err
	}
	r.Network.Modes = chaos.Modes{Unreliable: !sp.Bank}
	r.Length, r.Dir, r.Trace = cmp.Or(sp.ChaosFor, txntest.ChaosFor), dir, trace
	if sp.Failover {
		WithFailover(&r)
		r.Length = cmp.Or(sp.ChaosFor, FailoverLength)
	} else if r.Nemesis, err = txntest.RandomNemesis(seed, sp.Config.Layout.Nodes, r.Length, r.Network.Modes); err != nil {
		return testbed.Run{}, err
	}
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

// Run returns the run of load on logorder with cfg, without its
// network, nemesis or length: every transaction must end and every live
// node process the whole log within txntest.Settle of the last heal, a fresh
// client's read must commit within txntest.Progress of that, every node's
// decision of each tid must agree with every other's, and load's history
// is checked.
func Run(name string, seed int64, cfg logorder.Config, load *testbed.Txn) (testbed.Run, error) {
	var agree agreement
	dep := Deployment{Config: cfg, Setup: func(node int, s *logorder.Server) {
		s.OnDecide(func(tid int, out logorder.Outcome) { agree.add(node, tid, out) })
	}}
	deploy, err := dep.Cluster()
	if err != nil {
		return testbed.Run{}, err
	}
	load.Client = func(c *cluster.Cluster, name string) (workload.TxnClient, error) {
		return Client{Clerk: Clerk(c, name, cfg.Layout)}, nil
	}
	load.Open = func(e *testbed.Env, accounts int, balance int64) error {
		return openLogOrderAccounts(e.World, e.Cluster, cfg.Layout, accounts, balance)
	}
	return testbed.Run{
		Name: name, Seed: seed, Deploy: deploy, Workload: load,
		Settle: txntest.Settle, Progress: txntest.Progress,
		Drains: []testbed.Drain{{
			Holds: func(e *testbed.Env) bool { return dep.Drained(e.Cluster) },
			Says: func(e *testbed.Env) string {
				return "the nodes did not all process the whole log (" + dep.Progress(e.Cluster) + ")"
			},
		}},
		Checks: []testbed.Check{func(*testbed.Env) (testbed.Verdict, error) {
			return testbed.Verdict{Problem: agree.problem, Kind: "agreement"}, nil
		}, load.Check()},
	}, nil
}

// WithFailover makes r's nemesis a failover, whose problem (a node that
// did not catch up after a restart, or no progress) is the first check.
func WithFailover(r *testbed.Run) {
	f := &failover{}
	r.Nemesis.Reactive = f.nemesis
	says := r.Drains[0].Says
	r.Drains[0].Says = func(e *testbed.Env) string { return cmp.Or(f.problem, says(e)) }
	r.Checks = append([]testbed.Check{func(*testbed.Env) (testbed.Verdict, error) {
		return testbed.Verdict{Problem: f.problem}, nil
	}}, r.Checks...)
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
func openLogOrderAccounts(w *sim.World, c *cluster.Cluster, layout logorder.Layout, accounts int, balance int64) error {
	ck := Clerk(c, "bank", layout)
	var out logorder.Outcome
	var err error
	ended := false
	ck.Begin(0, func(tx *logorder.Tx, e error) {
		if e != nil {
			err, ended = e, true
			return
		}
		for a := range accounts {
			if e := tx.Put(Key("acct", a), fmt.Sprint(balance)); e != nil {
				err, ended = e, true
				return
			}
		}
		tx.Commit(func(_ int, o logorder.Outcome, e error) { out, err, ended = o, e, true })
	})
	if !w.RunUntil(func() bool { return ended }, txntest.Settle) || err != nil || out != logorder.Applied {
		return fmt.Errorf("opening the accounts did not commit: %v %v", out, err)
	}
	return nil
}
