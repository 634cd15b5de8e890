package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
)

// A txnEnv is a shardtxn deployment on the experiments' network.
type txnEnv struct {
	w      *sim.World
	c      *cluster.Cluster
	dep    txntest.Deployment
	clerks int
	// paperClients makes the clerks made from now on paper 003's client
	// (txntest.PaperClerk), which does not retry.
	paperClients bool
	disk         time.Duration // each server host's disk write (setDisk); 0: free
	// relayed makes the clerks made from now on send every transaction to
	// the coordinators, as paper 000's clients did (no ends to the shards).
	relayed bool
}

// newTxnEnv builds a coordinator group and shards shard groups of three
// replicas each: on three shared hosts as paper 000 deployed them (each
// host a coordinator replica and a replica of every shard), or with every
// replica on a host of its own.
func newTxnEnv(seed int64, shards int, shared bool, conf shardtxn.Config) (*txnEnv, error) {
	return buildTxnEnv(seed, txntest.Deployment{Shards: shards, Replicas: 3, Shared: shared, Config: conf}, nil)
}

// buildTxnEnv builds dep, its servers snapshotting at snapshotAt; layout,
// if not nil, changes the cluster's layout first (the coordinators' number
// and hosts, say), and a transaction across two shards has committed.
func buildTxnEnv(seed int64, dep txntest.Deployment, layout func(*cluster.Config)) (*txnEnv, error) {
	dep.Config.RSM.MaxRaftState = snapshotAt
	w, c, err := buildCluster(seed, func() (cluster.Config, error) {
		cfg, err := dep.Cluster()
		if err == nil && layout != nil {
			layout(&cfg)
		}
		return cfg, err
	})
	if err != nil {
		return nil, err
	}
	e := &txnEnv{w: w, c: c, dep: dep}
	ck := e.clerk()
	a, b := e.keys(0)
	ok := false
	if err := ck.Txn([]shardtxn.Op{shardtxn.Set(a, "0"), shardtxn.Set(b, "0")}, func(o shardtxn.Outcome) { ok = o.Committed }); err != nil {
		return nil, err
	}
	if !w.RunUntil(func() bool { return ok }, time.Minute) {
		return nil, fmt.Errorf("no transaction committed within a minute of virtual time")
	}
	return e, nil
}

// clerk returns a clerk on a client host of its own: ours, paper 003's if
// e.paperClients, or paper 000's if e.relayed.
func (e *txnEnv) clerk() *shardtxn.Clerk {
	e.clerks++
	name := fmt.Sprintf("client%d", e.clerks)
	switch {
	case e.paperClients:
		return txntest.PaperClerk(e.c, name, paperClientTimeout)
	case e.relayed:
		h := e.c.NewClient(name)
		ck, err := shardtxn.MakeClerk(h, e.c.Ends(h, 0, nil), nil)
		must(err)
		must(ck.SetTimeout(txntest.ClerkTimeout))
		return ck
	}
	return txntest.Clerk(e.c, name)
}

// paperClientTimeout is how long paper 003's client waits for an answer:
// twice the coordinators' 5 s transaction timeout, so that a coordinator
// that lives always answers first (the paper's HTTP client had no timeout
// of its own).
var paperClientTimeout = 2 * shardtxn.DefaultConfig().TxnTimeout

// keys returns client i's two keys, on two different shards (the same one
// if there is one shard).
func (e *txnEnv) keys(i int) (string, string) {
	a := fmt.Sprintf("c%d", i)
	for j := 0; ; j++ {
		b := fmt.Sprintf("c%d.%d", i, j)
		if e.dep.Shards == 1 || shardtxn.ShardOf(a, e.dep.Shards) != shardtxn.ShardOf(b, e.dep.Shards) {
			return a, b
		}
	}
}

// A txnOp is one operation of a client of an experiment: it calls done
// when the operation ends, saying whether it committed.
type txnOp func(ck *shardtxn.Clerk, client, n int, done func(committed bool))

// A txnLoad is clients running an operation over and over, each as soon as
// its last ended, recording when each ended, how long it took and whether
// it committed.
type txnLoad struct {
	stopped   bool
	at        []time.Duration
	took      []time.Duration
	committed []bool
}

// start starts clients running op.
func (e *txnEnv) start(clients int, op txnOp) *txnLoad {
	l := &txnLoad{}
	for i := range clients {
		ck := e.clerk()
		n := 0
		var step func()
		step = func() {
			if l.stopped {
				return
			}
			n++
			begin := e.w.Now()
			op(ck, i, n, func(committed bool) {
				if !l.stopped {
					l.at = append(l.at, e.w.Now())
					l.took = append(l.took, e.w.Now()-begin)
					l.committed = append(l.committed, committed)
				}
				step()
			})
		}
		step()
	}
	return l
}

// txn returns the op that runs the transaction ops(client, n).
func txn(ops func(client, n int) []shardtxn.Op) txnOp {
	return func(ck *shardtxn.Clerk, client, n int, done func(bool)) {
		if err := ck.Txn(ops(client, n), func(o shardtxn.Outcome) { done(o.Committed) }); err != nil {
			panic(err)
		}
	}
}
