package search

import (
	"fmt"
	"slices"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvdeploy"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/plant"
)

// The key/value scenario: three kvraft servers (reads through the log, the
// lab's Raft) on a reliable network, and two clients, each making two
// operations on one key, one after the other, every operation recorded
// with its virtual call and return times. When a client calls its next
// operation is the search's choice (an option offered once its last one
// returned), so that an operation may begin after another has ended, on a
// server that has not heard of it. The predicate is
// linearizability of the history so far (porcupine, through
// checks/linearize, per key), checked after every step at which an
// operation returned: a call alone cannot make a linearizable history
// stop being one, since porcupine may place an operation that has not
// returned anywhere after its call, or leave it out.

// kvOps are the clients' operations, in order, on the key x: client 0 puts
// then gets, client 1 appends then gets.
var kvOps = [][]linearize.KVInput{
	{{Kind: linearize.Put, Key: "x", Value: "a"}, {Kind: linearize.Get, Key: "x"}},
	{{Kind: linearize.Append, Key: "x", Value: "b"}, {Kind: linearize.Get, Key: "x"}},
}

// kvBugs are the rsm bugs the kv scenario can show: the other two need
// snapshots (the de-duplication table left out of them) or lease reads
// under clock drift, which the scenario does not have.
var kvBugs = []string{
	"writes answered before they commit",
	"reads served from any server's local state",
	"no de-duplication: a retried write applies twice",
}

// kvCheckTimeout bounds porcupine's (wall-clock) check of one history: a
// handful of operations takes microseconds.
const kvCheckTimeout = 10 * time.Second

// Scenarios returns every search scenario: Raft's, then the key/value
// service's, then the transactions', then the lock service's.
func Scenarios() []Scenario {
	return slices.Concat(RaftScenarios(), KVScenarios(), TxnScenarios(), LocksScenarios())
}

// KVScenarios returns the key/value search scenarios.
func KVScenarios() []Scenario {
	return []Scenario{{
		Name: "kv-ops",
		Doc: "3 kvraft servers, 2 clients of 2 operations each on one key (a put and a get; an append and a get), each called when the search chooses; " +
			"linearizability of the history so far; fault budget 1: a server cut off (reconnections free); 1 drop",
		Bugs: kvBugs, Faults: 1, Drops: 1,
		Build: buildKV,
	}}
}

// kvSys is the kv scenario's system.
type kvSys struct {
	w        *sim.World
	c        *cluster.Cluster
	hist     linearize.History
	returned int // operations returned so far
	checked  int // returned operations when the history was last checked
	cut      []bool
	clients  []*kvClient
}

// A kvClient is one client: its recorded clerk, its operations still to
// call, and whether one is under way.
type kvClient struct {
	rec   *linearize.RecordedKV
	ops   []linearize.KVInput
	busy  bool
	index int
	host  int // the world's index of its host
}

// buildKV builds the kv system for seed with bug planted.
func buildKV(seed int64, bug string) (*System, error) {
	opts := kvraft.DefaultOptions()
	if bug != "" {
		bugs := rsm.PlantedBugs()
		i := slices.IndexFunc(bugs, func(b plant.Bug[rsm.Config]) bool { return b.Name == bug })
		if i < 0 || !slices.Contains(kvBugs, bug) {
			return nil, fmt.Errorf("search: the kv scenario cannot plant %q", bug)
		}
		bugs[i].Plant(&opts)
	}
	w := sim.NewWorld(seed)
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: 3, Factory: kvdeploy.Factory(-1, opts)}}})
	if err != nil {
		return nil, err
	}
	s := &kvSys{w: w, c: c, cut: make([]bool, 3)}
	for id, ops := range kvOps {
		host := c.NewClient(fmt.Sprintf("clerk%d", id))
		rec := linearize.Record(kvraft.MakeClerk(host, c.Ends(host, 0, c.All(0))), &s.hist, id, w.Now)
		s.clients = append(s.clients, &kvClient{rec: rec, ops: ops, index: id, host: host.ID()})
	}
	return &System{
		World:  w,
		Faults: s.faults,
		Check:  s.check,
		Goal:   func() bool { return s.returned == s.hist.Len() && s.hist.Len() == len(kvOps)*len(kvOps[0]) },
		State:  s.state,
		RunFaults: func() []runfile.Fault {
			return testbed.RunFaults(c.Monkey(), c.Log())
		},
	}, nil
}

// call calls cl's next operation.
func (s *kvSys) call(cl *kvClient) {
	op := cl.ops[0]
	cl.ops, cl.busy = cl.ops[1:], true
	done := func() { s.returned++; cl.busy = false }
	switch op.Kind {
	case linearize.Put:
		cl.rec.Put(op.Key, op.Value, done)
	case linearize.Append:
		cl.rec.Append(op.Key, op.Value, done)
	default:
		cl.rec.Get(op.Key, func(string, int64) { done() })
	}
}

// faults offers each idle client's next operation, and cutting each
// server off, and reconnecting it.
func (s *kvSys) faults() []Fault {
	var fs []Fault
	for _, cl := range s.clients {
		if !cl.busy && len(cl.ops) > 0 {
			fs = append(fs, Fault{Name: fmt.Sprintf("client %d calls %v", cl.index, cl.ops[0]), Host: cl.host, Apply: func() { s.call(cl) }})
		}
	}
	for i := range s.cut {
		host := s.c.HostOf(0, i)
		id := s.c.Hosts()[host].ID()
		if s.cut[i] {
			fs = append(fs, Fault{Name: fmt.Sprintf("reconnect server %d", i), Host: id, Apply: func() {
				s.cut[i] = false
				s.apply(fault.Fault{Kind: fault.Rejoin, Host: host})
			}})
			continue
		}
		fs = append(fs, Fault{Name: fmt.Sprintf("cut server %d off", i), Budgeted: true, Host: id, Apply: func() {
			s.cut[i] = true
			s.apply(fault.Fault{Kind: fault.Isolate, Host: host})
		}})
	}
	return fs
}

// apply applies f; the faults offered are valid, so an error is a bug of
// the scenario.
func (s *kvSys) apply(f fault.Fault) {
	if err := s.c.Apply(f); err != nil {
		panic(fmt.Sprintf("search: kv-ops: %v", err))
	}
}

// check checks the history so far for linearizability, when an operation
// has returned since the last check.
func (s *kvSys) check() error {
	if s.returned == s.checked {
		return nil
	}
	s.checked = s.returned
	r, err := linearize.Check(linearize.KVModel(), s.hist.Operations(), nil, kvCheckTimeout, "", "")
	if err != nil {
		return fmt.Errorf("linearizability: %w", err)
	}
	if !r.OK() {
		return fmt.Errorf("linearizability: %s", r.Problem())
	}
	return nil
}

// state is the digest of the servers' state (whether each is cut off, its
// persisted Raft state and what its inspectors show) and of the history
// (each operation's output, and whether it returned).
func (s *kvSys) state() uint64 {
	h := uint64(0)
	for i, cut := range s.cut {
		h = mix(mix(h, uint64(b2u(cut))), bytesWord(s.c.Persister(0, i).ReadRaftState()))
		for _, f := range s.c.Hosts()[s.c.HostOf(0, i)].State() {
			h = mix(mix(h, bytesWord([]byte(f.Name))), bytesWord([]byte(f.Value)))
		}
	}
	for _, cl := range s.clients {
		h = mix(mix(h, uint64(len(cl.ops))), uint64(b2u(cl.busy)))
	}
	for _, op := range s.hist.Operations() {
		h = mix(h, bytesWord(fmt.Appendf(nil, "%d %v %v", op.ClientId, op.Input, op.Output)))
	}
	return h
}

// b2u is 1 for true, 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
