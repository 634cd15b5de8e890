// Package logordertest deploys logorder on the cluster harness for tests,
// sweeps and experiments, as kvraft/kvtest does kvraft: a Deployment (one
// group of nodes, each on a host of its own), its clerks, the
// transaction workloads' client (Client, a workload.TxnClient), and the
// chaos runs the sweeps and logorder's own tests share, as testbed runs
// (Spec: lists or the bank under a random nemesis or paper 004's
// failover).
package logordertest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim"
)

// Deployment describes a logorder deployment: one group ("nami") of
// Config.Layout.Nodes nodes, each on a host of its own, which hold the
// transaction log together and the key ranges the layout gives each.
type Deployment struct {
	Config logorder.Config
	// Setup, if set, hears of each node started (again after a restart),
	// e.g. to watch its decisions (Server.OnDecide).
	Setup func(node int, s *logorder.Server)
}

// Cluster returns the cluster configuration of the deployment.
func (d Deployment) Cluster() (cluster.Config, error) {
	if err := d.Config.Validate(); err != nil {
		return cluster.Config{}, err
	}
	return cluster.Config{Groups: []cluster.Group{{Name: "nami", Replicas: d.Config.Layout.Nodes, Factory: d.node}}}, nil
}

func (d Deployment) node(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
	disk := n.Host.PersisterNamed(fmt.Sprintf("nami/%d/store", n.Me))
	s, err := logorder.Start(n.Host, n.Peers, n.Me, n.Persister, disk, d.Config)
	if err != nil {
		return nil, nil, err
	}
	if d.Setup != nil {
		d.Setup(n.Me, s)
	}
	return s, s.Services(), nil
}

// Drained reports whether every live node of the deployment on c has
// processed its whole log, and all have processed the same tid.
func (d Deployment) Drained(c *cluster.Cluster) bool {
	last := -1
	for i := range c.Replicas(0) {
		s, ok := c.Replica(0, i).(*logorder.Server)
		if !ok {
			continue
		}
		if s.Queued() > 0 || last >= 0 && s.Processed() != last {
			return false
		}
		last = s.Processed()
	}
	return true
}

// Progress says how far each live node of the deployment on c has
// processed the log ("node 0: tid 120, node 2: tid 118 and 3 queued").
func (d Deployment) Progress(c *cluster.Cluster) string {
	var nodes []string
	for i := range c.Replicas(0) {
		if s, ok := c.Replica(0, i).(*logorder.Server); ok {
			n := fmt.Sprintf("node %d: tid %d", i, s.Processed())
			if q := s.Queued(); q > 0 {
				n += fmt.Sprintf(" and %d queued", q)
			}
			nodes = append(nodes, n)
		}
	}
	return strings.Join(nodes, ", ")
}

// Clerk returns a clerk of the deployment on c, on a client host
// of its own named name, waiting 300 ms for an answer before it asks
// another server.
func Clerk(c *cluster.Cluster, name string, layout logorder.Layout) *logorder.Clerk {
	h := c.NewClient(name)
	ck, err := logorder.MakeClerk(h, c.Ends(h, 0, nil), layout)
	must(err)
	ck.SetTimeout(300 * time.Millisecond)
	return ck
}

// Key names key n of a workload (prefix "k" for lists, "acct" for
// accounts) so that keys spread over the nodes: its first byte, which
// picks its range, is a letter that goes round with n.
func Key(prefix string, n int) string {
	return string(rune('a'+n%26)) + prefix + strconv.Itoa(n)
}

// Client runs the transaction workloads (workload.TxnClient) on a
// logorder clerk. Each transaction begins at the clerk's last tid, so a
// client sees its own writes; a list append reads the list and puts it
// back longer; a conflict is an abort (Fail), except in a transfer, which
// begins again until it commits. A commit whose outcome is unknown
// (logorder.ErrOutcomeUnknown: it may have been applied) is recorded as
// txncheck.Unknown, never as a failure. Bank rows are
// workload.Row(balance, RowSize).
type Client struct {
	*logorder.Clerk
	RowSize int
	// Overdraft lets a transfer take an account below zero (paper 004's
	// banking app, whose accounts open at zero); an account never
	// written holds zero.
	Overdraft bool
	// Times, if set, collects how long the client's Begins, Gets and
	// Commits take (paper 004's Table 1).
	Times *OpTimes
	// AnySnapshot begins each transaction at any server's recent tid
	// (min_tid 0), not the clerk's last: with snapshot reads, a client
	// may then miss its own writes.
	AnySnapshot bool
}

// min returns the min_tid to begin a transaction at.
func (c Client) min() int {
	if c.AnySnapshot {
		return 0
	}
	return c.LastTid()
}

// ListTxn runs txncheck's micro-ops as one transaction.
func (c Client) ListTxn(ops []txncheck.Op, done func(txncheck.Outcome, []txncheck.Op)) {
	c.Begin(c.min(), func(tx *logorder.Tx, err error) {
		must(err)
		filled := make([]txncheck.Op, len(ops))
		var step func(i int)
		step = func(i int) {
			if i == len(ops) {
				tx.Commit(func(_ int, o logorder.Outcome, err error) {
					switch {
					case errors.Is(err, logorder.ErrOutcomeUnknown):
						done(txncheck.Unknown, filled)
					case err != nil || o != logorder.Applied:
						done(txncheck.Fail, nil)
					default:
						done(txncheck.OK, filled)
					}
				})
				return
			}
			o := ops[i]
			key := Key("k", o.Key)
			must(tx.Get(key, func(v string, _ bool, err error) {
				if err != nil {
					done(txncheck.Fail, nil)
					return
				}
				filled[i] = o
				if o.Type == txncheck.OpRead {
					filled[i] = txncheck.Read(o.Key, workload.Ints(strings.Fields(v))...)
				} else {
					must(tx.Put(key, strings.TrimSpace(v+" "+strconv.Itoa(o.Value))))
				}
				step(i + 1)
			}))
		}
		step(0)
	})
}

// Transfer makes the moves in one transaction: it reads the accounts'
// balances and, if none would go below zero, puts back their new rows,
// beginning again on a conflict.
func (c Client) Transfer(moves []bank.Transfer, done func(txncheck.Outcome)) {
	accounts := workload.MovedAccounts(moves)
	var round func()
	round = func() {
		c.begin(func(tx *logorder.Tx) {
			c.balances(tx, accounts, func(b []int64, err error) {
				if err != nil {
					round()
					return
				}
				rows, short := workload.Moved(accounts, b, moves, c.RowSize, c.Overdraft)
				if short != nil {
					done(txncheck.Fail)
					return
				}
				for i, a := range accounts {
					must(tx.Put(Key("acct", a), rows[i]))
				}
				c.commit(tx, func(o logorder.Outcome, err error) {
					switch {
					case errors.Is(err, logorder.ErrOutcomeUnknown):
						done(txncheck.Unknown)
					case err != nil:
						done(txncheck.Fail)
					case o == logorder.Applied:
						done(txncheck.OK)
					default:
						round()
					}
				})
			})
		})
	}
	round()
}

// Balances reads every account in one transaction, committed (or, with
// the clerk's snapshot reads, not) like any other.
func (c Client) Balances(accounts int, done func(txncheck.Outcome, []int64)) {
	all := make([]int, accounts)
	for a := range all {
		all[a] = a
	}
	c.begin(func(tx *logorder.Tx) {
		c.balances(tx, all, func(b []int64, err error) {
			if err != nil {
				done(txncheck.Fail, nil)
				return
			}
			c.commit(tx, func(o logorder.Outcome, err error) {
				if err != nil || o != logorder.Applied {
					done(txncheck.Fail, nil)
					return
				}
				done(txncheck.OK, b)
			})
		})
	})
}

// balances reads accounts' balances in tx, one after another.
func (c Client) balances(tx *logorder.Tx, accounts []int, done func([]int64, error)) {
	out := make([]int64, len(accounts))
	var step func(i int)
	step = func(i int) {
		if i == len(accounts) {
			done(out, nil)
			return
		}
		took := c.Times.start("getAsOf")
		must(tx.Get(Key("acct", accounts[i]), func(v string, _ bool, err error) {
			took()
			if err != nil {
				done(nil, err)
				return
			}
			out[i], _ = workload.RowBalance(v)
			step(i + 1)
		}))
	}
	step(0)
}

// begin begins a transaction at the client's min tid, timed.
func (c Client) begin(done func(*logorder.Tx)) {
	took := c.Times.start("begin")
	c.Begin(c.min(), func(tx *logorder.Tx, err error) {
		took()
		must(err)
		done(tx)
	})
}

// commit commits tx, timed.
func (c Client) commit(tx *logorder.Tx, done func(logorder.Outcome, error)) {
	took := c.Times.start("commit")
	tx.Commit(func(_ int, o logorder.Outcome, err error) {
		took()
		done(o, err)
	})
}

// OpTimes collects how long operations take, by name, in a world's
// virtual time.
type OpTimes struct {
	W    *sim.World
	Took map[string][]time.Duration
}

// start notes that an operation called name begins, and returns the
// function to call when it ends. On a nil OpTimes it does nothing.
func (t *OpTimes) start(name string) func() {
	if t == nil {
		return func() {}
	}
	begin := t.W.Now()
	return func() {
		if t.Took == nil {
			t.Took = map[string][]time.Duration{}
		}
		t.Took[name] = append(t.Took[name], t.W.Now()-begin)
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
