package search

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/plant"
)

// The transactions scenario: shardtxn with two shards and a coordinator
// group, each of one replica on a host of its own, on a reliable network,
// and two clients, each making one transaction across both shards that
// the other's crosses (client 0 reads x and writes y, client 1 writes x
// and reads y, x on shard 0 and y on shard 1), called when the search
// chooses. The predicates are judged from outside the protocol, by what
// the shards' state machines apply (shardtxn.Watcher):
//   - lock safety: no two transactions prepared at a shard and not yet
//     decided there hold conflicting locks on a key (one of them writes
//     it), a transaction holding its locks from its yes vote to its
//     decision, whatever the shard's lock table says;
//   - atomic decisions: no transaction is committed at one shard and
//     aborted at another.
// Faults: a server cut off (budget 1; reconnecting is free). The
// coordinator's and the cohorts' timeouts are shortened (txnTimeout,
// txnCleanupAge) so that a schedule reaches them in few steps.

// txnBugs are the shardtxn bugs the scenario can show.
var txnBugs = []string{
	"cohort drops its locks on a timeout without a decision",
	"read lock released before the decision",
	"background cleanup aborts a transaction the coordinator committed",
}

// The scenario's timeouts: the age at which a coordinator aborts a
// transaction (and a cohort with the planted bug drops its locks), and at
// which a shard's cleanup asks about a prepared one.
const (
	txnTimeout    = 400 * time.Millisecond
	txnCleanupAge = 200 * time.Millisecond
)

// TxnScenarios returns the transactions search scenarios.
func TxnScenarios() []Scenario {
	return []Scenario{{
		Name: "txn-2pc",
		Doc: "shardtxn: 2 shards and a coordinator, one replica each; 2 clients, each one transaction across both shards crossing the other's, called when the search chooses; " +
			"lock safety and atomic decisions, judged from what the shards apply; fault budget 1: a server cut off (reconnections free)",
		Bugs: txnBugs, Faults: 1,
		Build: buildTxn,
	}}
}

// txnSys is the transactions scenario's system.
type txnSys struct {
	c       *cluster.Cluster
	clients []*txnClient
	cut     []bool // coordinator, shard 0, shard 1
	// active are, per shard, the transactions prepared there and not yet
	// decided, with their ops there; decided, per transaction, the
	// decision each shard applied.
	active  []map[shardtxn.Txid][]shardtxn.Op
	decided map[shardtxn.Txid]map[int]bool
	err     error // the first predicate broken, as a shard applied it
	ended   int   // transactions whose outcome a client heard
}

// A txnClient is one client: its clerk, its transaction, and whether it
// called it.
type txnClient struct {
	ck     *shardtxn.Clerk
	ops    []shardtxn.Op
	called bool
	index  int
	host   int // the world's index of its host
}

// txnKeys returns a key of shard 0 and one of shard 1 (of two).
func txnKeys() (x, y string) {
	for k := 0; x == "" || y == ""; k++ {
		key := "k" + strconv.Itoa(k)
		if shardtxn.ShardOf(key, 2) == 0 && x == "" {
			x = key
		} else if shardtxn.ShardOf(key, 2) == 1 && y == "" {
			y = key
		}
	}
	return x, y
}

// buildTxn builds the transactions system for seed with bug planted.
func buildTxn(seed int64, bug string) (*System, error) {
	cfg := shardtxn.DefaultConfig()
	cfg.TxnTimeout, cfg.CleanupAge = txnTimeout, txnCleanupAge
	if bug != "" {
		bugs := shardtxn.PlantedBugs()
		i := slices.IndexFunc(bugs, func(b plant.Bug[shardtxn.Config]) bool { return b.Name == bug })
		if i < 0 || !slices.Contains(txnBugs, bug) {
			return nil, fmt.Errorf("search: the txn scenario cannot plant %q", bug)
		}
		bugs[i].Plant(&cfg)
	}
	s := &txnSys{cut: make([]bool, 3), decided: map[shardtxn.Txid]map[int]bool{}}
	for range 2 {
		s.active = append(s.active, map[shardtxn.Txid][]shardtxn.Op{})
	}
	d := txntest.Deployment{Shards: 2, Replicas: 1, Config: cfg, Setup: func(shard int, srv *shardtxn.ShardServer) {
		srv.Watch(shardtxn.Watcher{
			Prepared: func(id shardtxn.Txid, ops []shardtxn.Op) { s.prepared(shard, id, ops) },
			Decided:  func(id shardtxn.Txid, commit bool) { s.decide(shard, id, commit) },
		})
	}}
	ccfg, err := d.Cluster()
	if err != nil {
		return nil, err
	}
	w := sim.NewWorld(seed)
	if s.c, err = cluster.New(w, ccfg); err != nil {
		return nil, err
	}
	x, y := txnKeys()
	for id, ops := range [][]shardtxn.Op{
		{shardtxn.Get(x), shardtxn.Set(y, "0")},
		{shardtxn.Set(x, "1"), shardtxn.Get(y)},
	} {
		ck := txntest.Clerk(s.c, fmt.Sprintf("client%d", id))
		s.clients = append(s.clients, &txnClient{ck: ck, ops: ops, index: id, host: s.c.Hosts()[len(s.c.Hosts())-1].ID()})
	}
	return &System{
		World:  w,
		Faults: s.faults,
		Check:  func() error { return s.err },
		Goal:   func() bool { return s.ended == len(s.clients) },
		State:  s.state,
		RunFaults: func() []runfile.Fault {
			return testbed.RunFaults(s.c.Monkey(), s.c.Log())
		},
	}, nil
}

// writes reports whether op writes its key (takes its lock exclusive).
func writes(op shardtxn.Op) bool {
	return op.Kind != shardtxn.OpGet && op.Kind != shardtxn.OpRead
}

// prepared records that shard voted yes for id, and checks lock safety
// against the transactions prepared there and not yet decided.
func (s *txnSys) prepared(shard int, id shardtxn.Txid, ops []shardtxn.Op) {
	for _, other := range slices.SortedFunc(maps.Keys(s.active[shard]), compareTxids) {
		if other == id {
			continue
		}
		for _, a := range ops {
			for _, b := range s.active[shard][other] {
				if a.Key == b.Key && (writes(a) || writes(b)) {
					s.fail(fmt.Errorf("lock safety: transactions %v and %v hold conflicting locks on %q at shard %d", other, id, a.Key, shard))
				}
			}
		}
	}
	s.active[shard][id] = ops
}

// decide records the decision shard applied to id, and checks that no
// other shard applied the other one.
func (s *txnSys) decide(shard int, id shardtxn.Txid, commit bool) {
	delete(s.active[shard], id)
	if s.decided[id] == nil {
		s.decided[id] = map[int]bool{}
	}
	s.decided[id][shard] = commit
	for other, c := range s.decided[id] {
		if c != commit {
			committed, aborted := shard, other
			if !commit {
				committed, aborted = other, shard
			}
			s.fail(fmt.Errorf("atomic decisions: transaction %v committed at shard %d and aborted at shard %d", id, committed, aborted))
		}
	}
}

// fail keeps the first predicate broken.
func (s *txnSys) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// compareTxids orders transaction ids by client, then sequence.
func compareTxids(a, b shardtxn.Txid) int {
	return cmp.Or(cmp.Compare(a.Client, b.Client), cmp.Compare(a.Seq, b.Seq))
}

// servers returns the world's indices of the servers' hosts: the
// coordinator's, then the shards'.
func (s *txnSys) servers() []int {
	return []int{s.c.HostOf(0, 0), s.c.HostOf(1, 0), s.c.HostOf(2, 0)}
}

// faults offers each client's transaction, if not called yet, and cutting
// each server off, and reconnecting it.
func (s *txnSys) faults() []Fault {
	var fs []Fault
	for _, cl := range s.clients {
		if !cl.called {
			fs = append(fs, Fault{Name: fmt.Sprintf("client %d calls %v", cl.index, cl.ops), Host: cl.host, Apply: func() {
				cl.called = true
				if err := cl.ck.Txn(cl.ops, func(shardtxn.Outcome) { s.ended++ }); err != nil {
					panic(fmt.Sprintf("search: txn-2pc: %v", err))
				}
			}})
		}
	}
	for i, host := range s.servers() {
		id := s.c.Hosts()[host].ID()
		if s.cut[i] {
			fs = append(fs, Fault{Name: fmt.Sprintf("reconnect %s", s.c.Hosts()[host].Name()), Host: id, Apply: func() {
				s.cut[i] = false
				s.apply(fault.Fault{Kind: fault.Rejoin, Host: host})
			}})
			continue
		}
		fs = append(fs, Fault{Name: fmt.Sprintf("cut %s off", s.c.Hosts()[host].Name()), Budgeted: true, Host: id, Apply: func() {
			s.cut[i] = true
			s.apply(fault.Fault{Kind: fault.Isolate, Host: host})
		}})
	}
	return fs
}

// apply applies f; the faults offered are valid, so an error is a bug of
// the scenario.
func (s *txnSys) apply(f fault.Fault) {
	if err := s.c.Apply(f); err != nil {
		panic(fmt.Sprintf("search: txn-2pc: %v", err))
	}
}

// state is the digest of the servers' state (whether each is cut off, its
// persisted Raft state and what its inspectors show), of the clients
// (called, answered) and of the decisions applied.
func (s *txnSys) state() uint64 {
	h := uint64(0)
	for i, host := range s.servers() {
		h = mix(mix(h, b2u(s.cut[i])), bytesWord(s.c.Persister(i, 0).ReadRaftState()))
		for _, f := range s.c.Hosts()[host].State() {
			h = mix(mix(h, bytesWord([]byte(f.Name))), bytesWord([]byte(f.Value)))
		}
	}
	for _, cl := range s.clients {
		h = mix(h, b2u(cl.called))
	}
	h = mix(h, uint64(s.ended))
	for _, id := range slices.SortedFunc(maps.Keys(s.decided), compareTxids) {
		for shard := range 2 {
			if c, ok := s.decided[id][shard]; ok {
				h = mix(mix(mix(mix(h, uint64(id.Client)), uint64(id.Seq)), uint64(shard)), b2u(c)+1)
			}
		}
	}
	return h
}
