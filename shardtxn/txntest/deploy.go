// Package txntest deploys shardtxn on the cluster harness for tests,
// sweeps and experiments, as kvraft/kvtest does kvraft: a Deployment (a
// coordinator group and shard groups, on shared hosts or each replica on
// its own), its clerks, the transaction workloads' client (Client, a
// workload.TxnClient), the variants of paper 000's and paper 003's
// options (Variants), and the chaos runs the sweeps and shardtxn's own
// tests share, as testbed runs: Spec (lists or the bank under a random
// nemesis or outages) and Crossing (paper 000's deadlock, in lock step).
package txntest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn"
)

// Deployment describes a shardtxn deployment: a coordinator group (group 0,
// "coord") and Shards shard groups (groups 1…Shards, "shard0", …), each of
// Replicas replicas.
type Deployment struct {
	Shards   int
	Replicas int
	// Shared places replica i of every group on shared host i, as paper
	// 000's containers each ran a coordinator and shard replicas (killing
	// one kills all of them); false gives every replica a host of its own.
	Shared bool
	Config shardtxn.Config
	// Setup, if set, hears of each shard replica started, e.g. to watch
	// its installs (ShardServer.OnInstall); shard is the shard's number.
	Setup func(shard int, s *shardtxn.ShardServer)
}

// Cluster returns the cluster configuration of the deployment.
func (d Deployment) Cluster() (cluster.Config, error) {
	if d.Shards < 1 || d.Replicas < 1 {
		return cluster.Config{}, fmt.Errorf("txntest: shardtxn with %d shards of %d replicas", d.Shards, d.Replicas)
	}
	var hosts []int
	cfg := cluster.Config{}
	if d.Config.Discovery == shardtxn.ReplicaManager {
		cfg.Directory = rsm.NewDirectoryService
	}
	if d.Shared {
		cfg.Hosts = d.Replicas
		for i := range d.Replicas {
			hosts = append(hosts, i)
		}
	}
	cfg.Groups = append(cfg.Groups, cluster.Group{Name: shardtxn.CoordGroup, Replicas: d.Replicas, Hosts: hosts, Factory: d.coordinator})
	for s := range d.Shards {
		cfg.Groups = append(cfg.Groups, cluster.Group{Name: shardtxn.ShardGroup(s), Replicas: d.Replicas, Hosts: hosts, Factory: d.shard(s)})
	}
	return cfg, nil
}

// Hosts returns how many server hosts the deployment has.
func (d Deployment) Hosts() int {
	if d.Shared {
		return d.Replicas
	}
	return (d.Shards + 1) * d.Replicas
}

func (d Deployment) coordinator(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
	shards := make([][]*labrpc.ClientEnd, d.Shards)
	for s := range shards {
		shards[s] = n.Dial(shardtxn.ShardGroup(s))
	}
	c, err := shardtxn.StartCoordinator(n.Host, n.Peers, n.Me, n.Persister, shards, n.Directory(), d.Config)
	if err != nil {
		return nil, nil, err
	}
	return c, c.Services(), nil
}

func (d Deployment) shard(s int) cluster.Factory {
	return func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
		srv, err := shardtxn.StartShard(n.Host, n.Peers, n.Me, n.Persister, s, n.Dial(shardtxn.CoordGroup), n.Directory(), d.Config)
		if err != nil {
			return nil, nil, err
		}
		if d.Setup != nil {
			d.Setup(s, srv)
		}
		return srv, srv.Services(), nil
	}
}

// Drained reports whether every live replica of the deployment on c has
// nothing pending: no unfinished transaction in a coordinator's table, no
// lock and nothing prepared on a shard. It holds once every transaction is
// decided and its decision delivered.
func (d Deployment) Drained(c *cluster.Cluster) bool { return d.Undrained(c) == "" }

// Undrained says what the live replicas of the deployment on c still hold
// ("coord/0: 1 unfinished; shard2/1: 2 locked keys, 1 prepared"), or ""
// if nothing.
func (d Deployment) Undrained(c *cluster.Cluster) string {
	var held []string
	for g := range d.Shards + 1 {
		for i := range c.Replicas(g) {
			switch r := c.Replica(g, i).(type) {
			case *shardtxn.CoordServer:
				if n := r.Pending(); n > 0 {
					held = append(held, fmt.Sprintf("coord/%d: %d unfinished", i, n))
				}
			case *shardtxn.ShardServer:
				if k, p := r.Locks(); k+p > 0 {
					held = append(held, fmt.Sprintf("%s/%d: %d locked keys, %d prepared", shardtxn.ShardGroup(g-1), i, k, p))
				}
			}
		}
	}
	return strings.Join(held, "; ")
}

// Clerk returns a clerk of the deployment on c, on a client host
// of its own named name, asking c's directory for the groups' leaders if
// c has one. It waits ClerkTimeout for a coordinator's answer before
// it asks the next: a transaction retried under its Txid applies once, and
// a lost message should not cost the rsm default's second.
func Clerk(c *cluster.Cluster, name string) *shardtxn.Clerk {
	h := c.NewClient(name)
	var shards [][]*labrpc.ClientEnd
	for g := 1; g < c.Groups(); g++ {
		shards = append(shards, c.Ends(h, g, nil))
	}
	ck, err := shardtxn.MakeClerk(h, c.Ends(h, 0, nil), shards)
	must(err)
	if dir := c.Directory(h); dir != nil {
		must(ck.Discover(dir))
	}
	must(ck.SetTimeout(ClerkTimeout))
	return ck
}

// ClerkTimeout is how long Clerk's clerks wait for a group's
// answer before they ask the next replica.
const ClerkTimeout = 300 * time.Millisecond

// PaperClerk returns paper 003's client of the deployment on c, on a
// client host of its own named name: it sends every transaction to the
// coordinators (found through c's directory, if c has one), none straight
// to a shard, once (shardtxn.Clerk.NoRetry), and waits up to timeout for
// the answer. Paper 003's client spoke HTTP, whose Go client has no
// timeout of its own: a timeout longer than the coordinators' transaction
// timeout stands for that.
func PaperClerk(c *cluster.Cluster, name string, timeout time.Duration) *shardtxn.Clerk {
	h := c.NewClient(name)
	ck, err := shardtxn.MakeClerk(h, c.Ends(h, 0, nil), nil)
	must(err)
	if dir := c.Directory(h); dir != nil {
		must(ck.Discover(dir))
	}
	must(ck.SetTimeout(timeout))
	must(ck.NoRetry())
	return ck
}

// Client runs the transaction workloads (workload.TxnClient) on a
// shardtxn clerk: list key k is "k<k>", bank account a is "acct<a>",
// values are decimal, bank rows workload.Row(balance, RowSize).
type Client struct {
	*shardtxn.Clerk
	RowSize int
	// Overdraft lets a transfer take an account below zero (paper 004's
	// banking app, whose accounts open at zero); an account never
	// written holds zero.
	Overdraft bool
}

// ListKey names list key k's key.
func ListKey(k int) string { return "k" + strconv.Itoa(k) }

// Account names bank account a's key.
func Account(a int) string { return "acct" + strconv.Itoa(a) }

// ListTxn runs txncheck's micro-ops as one shardtxn transaction.
func (c Client) ListTxn(ops []txncheck.Op, done func(txncheck.Outcome, []txncheck.Op)) {
	txn := make([]shardtxn.Op, len(ops))
	for i, o := range ops {
		txn[i] = shardtxn.Read(ListKey(o.Key))
		if o.Type == txncheck.OpAppend {
			txn[i] = shardtxn.Append(ListKey(o.Key), strconv.Itoa(o.Value))
		}
	}
	must(c.Txn(txn, func(out shardtxn.Outcome) {
		if !out.Committed {
			done(txncheck.Fail, nil)
			return
		}
		filled := make([]txncheck.Op, len(ops))
		for i, o := range ops {
			filled[i] = o
			if o.Type == txncheck.OpRead {
				filled[i] = txncheck.Read(o.Key, workload.Ints(out.Results[i].List)...)
			}
		}
		done(txncheck.OK, filled)
	}))
}

// Transfer makes the moves in one update (shardtxn.Clerk.Update): a
// read-only transaction of the accounts, then conditional sets of their
// new rows. It fails if an account would go below zero.
func (c Client) Transfer(moves []bank.Transfer, done func(txncheck.Outcome)) {
	accounts := workload.MovedAccounts(moves)
	keys := make([]string, len(accounts))
	for i, a := range accounts {
		keys[i] = Account(a)
	}
	must(c.Update(keys, func(read []shardtxn.Result) ([]string, string) {
		old := make([]int64, len(read))
		for i, r := range read {
			if !r.Found {
				continue // an account never written holds nothing
			}
			b, err := workload.RowBalance(r.Value)
			if err != nil {
				return nil, fmt.Sprintf("%s holds %q, not a row", keys[i], r.Value)
			}
			old[i] = b
		}
		rows, short := workload.Moved(accounts, old, moves, c.RowSize, c.Overdraft)
		if short != nil {
			return nil, fmt.Sprintf("account %d holds less than %d", short.From, short.Amount)
		}
		return rows, ""
	}, func(out shardtxn.Outcome) {
		if out.Committed {
			done(txncheck.OK)
		} else {
			done(txncheck.Fail)
		}
	}))
}

// Balances reads every account in one read-only transaction.
func (c Client) Balances(accounts int, done func(txncheck.Outcome, []int64)) {
	txn := make([]shardtxn.Op, accounts)
	for a := range txn {
		txn[a] = shardtxn.Get(Account(a))
	}
	must(c.Txn(txn, func(out shardtxn.Outcome) {
		if !out.Committed {
			done(txncheck.Fail, nil)
			return
		}
		balances := make([]int64, accounts)
		for a, r := range out.Results {
			balances[a], _ = workload.RowBalance(r.Value)
		}
		done(txncheck.OK, balances)
	}))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
