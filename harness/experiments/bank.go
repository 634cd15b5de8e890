package experiments

import (
	"fmt"
	"slices"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
)

// Paper 004's banking app: rows of 1 KB, and transactions of 5 moves over
// 10 accounts, which open at zero and may go below it.
const (
	rowSize   = 1024
	bankMoves = 5
)

// A bankDesign is a transactional service the bank experiments run: 2PC
// under a shardtxn configuration, or log ordering under a logorder one.
type bankDesign struct {
	Name string
	txn  *shardtxn.Config
	log  *logorder.Config
	// clerkTimeout, if set, is how long a logorder client waits for an
	// answer before it asks another server (else the services' 300 ms).
	clerkTimeout time.Duration
}

// twoPC is a shardtxn design, from shardtxn's defaults with conflicts c
// and presumption p.
func twoPC(name string, c shardtxn.Conflicts, p shardtxn.Presumption) bankDesign {
	cfg := shardtxn.DefaultConfig()
	cfg.Conflicts, cfg.Presumption = c, p
	return bankDesign{Name: name, txn: &cfg}
}

// logOrdered is a logorder design of nodes nodes, each key on replicas of
// them, with a commit cache of cache transactions. Its clients begin at
// any server's recent tid (min_tid 0), as the banking app needs no more:
// every commit is validated at its place in the log anyway.
func logOrdered(name string, nodes, replicas, cache int) bankDesign {
	cfg := logorder.DefaultConfig()
	cfg.Layout = logorder.DefaultLayout(nodes, replicas)
	cfg.CacheSize = cache
	return bankDesign{Name: name, log: &cfg}
}

// A bankEnv is a design deployed on the experiments' network, ready for
// bank clients.
type bankEnv struct {
	w       *sim.World
	c       *cluster.Cluster
	client  func(name string, times *logordertest.OpTimes) workload.TxnClient
	clients int
}

// deploy builds the design from seed and waits until it commits a
// transaction. 2PC runs two shards on three shared hosts (paper 000's
// deployment), each host a coordinator replica and a replica of both.
func (d bankDesign) deploy(seed int64) (*bankEnv, error) {
	if d.txn != nil {
		e, err := newTxnEnv(seed, 2, true, *d.txn)
		if err != nil {
			return nil, err
		}
		return &bankEnv{w: e.w, c: e.c, client: func(name string, _ *logordertest.OpTimes) workload.TxnClient {
			return txntest.Client{Clerk: txntest.Clerk(e.c, name), RowSize: rowSize, Overdraft: true}
		}}, nil
	}
	w, c, err := buildCluster(seed, logordertest.Deployment{Config: *d.log}.Cluster)
	if err != nil {
		return nil, err
	}
	e := &bankEnv{w: w, c: c, client: func(name string, times *logordertest.OpTimes) workload.TxnClient {
		ck := logordertest.Clerk(c, name, d.log.Layout)
		if d.clerkTimeout > 0 {
			ck.SetTimeout(d.clerkTimeout)
		}
		return logordertest.Client{Clerk: ck, AnySnapshot: true, RowSize: rowSize, Overdraft: true, Times: times}
	}}
	ok := false
	e.client("settle", nil).Transfer([]bank.Transfer{{From: 0, To: 1, Amount: 1}}, func(txncheck.Outcome) { ok = true })
	if !w.RunUntil(func() bool { return ok }, time.Minute) {
		return nil, fmt.Errorf("%s: no transaction committed within a minute of virtual time", d.Name)
	}
	return e, nil
}

// A bankLoad is what bank clients did: when each transfer ended and how
// long it took, begun again on every conflict until it committed; and, on
// logorder, how long the clients' Begins, Gets and Commits took.
type bankLoad struct {
	run     *workload.Run
	stopped bool
	at      []time.Duration
	took    []time.Duration
	times   *logordertest.OpTimes
}

// start starts workers clients making paper 004's transfers between
// accounts accounts.
func (e *bankEnv) start(workers, accounts int) *bankLoad {
	l := &bankLoad{times: &logordertest.OpTimes{W: e.w}}
	clients := make([]workload.TxnClient, workers)
	for i := range clients {
		e.clients++
		clients[i] = e.client(fmt.Sprintf("client%d", e.clients), l.times)
	}
	var h bank.History
	l.run = workload.StartBank(e.w, clients, workload.BankSpec{Accounts: accounts, MaxAmount: 100, Moves: bankMoves,
		Done: func(_ int, _ bool, outcome txncheck.Outcome, start, end time.Duration) {
			if !l.stopped && outcome == txncheck.OK {
				l.at, l.took = append(l.at, end), append(l.took, end-start)
			}
		}}, &h)
	return l
}

// stop stops recording and the clients.
func (l *bankLoad) stop() {
	l.stopped = true
	l.run.Stop()
}

// measure runs workers clients for span and returns their load.
func (e *bankEnv) measure(workers, accounts int, span time.Duration) *bankLoad {
	l := e.start(workers, accounts)
	e.w.Run(span)
	l.stop()
	return l
}

// killLeader kills the host of the leader of group 0: the coordinators'
// under 2PC, the log's under log ordering. It returns the host.
func (e *bankEnv) killLeader() (int, error) {
	leader, ok := e.c.Leader(0)
	if !ok {
		return 0, fmt.Errorf("no leader of the log or the coordinators at %v", e.w.Now())
	}
	h := e.c.HostOf(0, leader)
	return h, e.c.Apply(fault.Fault{Kind: fault.Kill, Host: h})
}

// percentiles returns the p50, p95 and p99 of ds in milliseconds.
func percentiles(ds []time.Duration) (p50, p95, p99 float64) {
	v := millis(ds)
	slices.Sort(v)
	if len(v) == 0 {
		return 0, 0, 0
	}
	return plots.Percentile(v, 0.5), plots.Percentile(v, 0.95), plots.Percentile(v, 0.99)
}
