package search

import (
	"fmt"
	"slices"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/plant"
)

// The locks scenario: frangipani's lock service (one lock server) on a
// reliable network, and two caching clerks, each putting the key x and
// then getting it, each operation called when the search chooses. The
// predicate, lock safety, is judged with the leases' expiry on the world's
// clock (the scenario's hosts have no clock drift): no two clerks hold
// conflicting locks on a key with their leases running
// (frangipani.Clerk.Holdings), and a clerk serves an operation from its
// cache (frangipani.Clerk.OnServe) only under a lock on its key whose
// lease is running, while no other clerk holds a conflicting one with its
// lease running. (A contended write the lock service performs in its own
// log holds no clerk's lock.) Faults: a host
// cut off (budget 1; reconnecting is free). The leases and the timers are
// shortened (locksConfig) so that a schedule outlives a lease in few
// steps.

// locksBugs are the frangipani bugs the scenario can show: the others
// lose or misorder data (dirty values dropped, a grant before the flush),
// which a lock predicate does not see, or need clock drift.
var locksBugs = []string{"clerk serves after its lease ran out"}

// locksConfig is the scenario's lock service configuration: the default
// one with its leases and timers shortened.
func locksConfig() frangipani.Config {
	cfg := frangipani.DefaultConfig()
	cfg.Lease, cfg.RenewEvery, cfg.BreakAfter = 100*time.Millisecond, 25*time.Millisecond, 200*time.Millisecond
	return cfg
}

// LocksScenarios returns the lock service's search scenarios.
func LocksScenarios() []Scenario {
	return []Scenario{{
		Name: "locks",
		Doc: "frangipani: 1 lock server, 2 caching clerks each putting x then getting it, called when the search chooses; " +
			"lock safety judged with the leases' expiry; fault budget 1: a host cut off (reconnections free)",
		Bugs: locksBugs, Faults: 1,
		Build: buildLocks,
	}}
}

// locksSys is the locks scenario's system.
type locksSys struct {
	w       *sim.World
	c       *cluster.Cluster
	clerks  []*locksClerk
	hosts   []*sim.Host // the hosts that may be cut off: the server's, the clerks'
	cut     []bool
	err     error
	returns int
}

// A locksClerk is one clerk, its operations still to call, and whether
// one is under way.
type locksClerk struct {
	ck    *frangipani.Clerk
	ops   []frangipani.Op
	busy  bool
	index int
	host  int // the world's index of its host
}

// buildLocks builds the locks system for seed with bug planted.
func buildLocks(seed int64, bug string) (*System, error) {
	cfg := locksConfig()
	if bug != "" {
		bugs := frangipani.PlantedBugs()
		i := slices.IndexFunc(bugs, func(b plant.Bug[frangipani.Config]) bool { return b.Name == bug })
		if i < 0 || !slices.Contains(locksBugs, bug) {
			return nil, fmt.Errorf("search: the locks scenario cannot plant %q", bug)
		}
		bugs[i].Plant(&cfg)
	}
	d := frangipanitest.Deployment{Replicas: 1, Config: cfg}
	ccfg, err := d.Cluster()
	if err != nil {
		return nil, err
	}
	w := sim.NewWorld(seed)
	c, err := cluster.New(w, ccfg)
	if err != nil {
		return nil, err
	}
	s := &locksSys{w: w, c: c, hosts: []*sim.Host{c.Hosts()[c.HostOf(0, 0)]}}
	for id := range 2 {
		h := c.NewClient(fmt.Sprintf("clerk%d", id))
		ck, err := d.Clerk(c, h)
		if err != nil {
			return nil, err
		}
		ck.OnServe(func(key string, mode frangipani.Mode) { s.served(id, key, mode) })
		s.clerks = append(s.clerks, &locksClerk{ck: ck, index: id, host: h.ID(),
			ops: []frangipani.Op{{Kind: frangipani.OpPut, Value: fmt.Sprint(id)}, {Kind: frangipani.OpGet}}})
		s.hosts = append(s.hosts, h)
	}
	s.cut = make([]bool, len(s.hosts))
	return &System{
		World:  w,
		Faults: s.faults,
		Check:  s.check,
		Goal:   func() bool { return s.returns == 4 },
		State:  s.state,
		RunFaults: func() []runfile.Fault {
			return testbed.RunFaults(c.Monkey(), c.Log())
		},
	}, nil
}

// locksKey is the key the clerks share.
const locksKey = "x"

// conflict reports whether locks of modes a and b on one key conflict.
func conflict(a, b frangipani.Mode) bool {
	return a == frangipani.Exclusive || b == frangipani.Exclusive
}

// holding returns clerk i's lock on key with its lease running now, if
// any.
func (s *locksSys) holding(i int, key string) (frangipani.Holding, bool) {
	for _, h := range s.clerks[i].ck.Holdings() {
		if h.Key == key && s.w.Now() < h.LeaseEnd {
			return h, true
		}
	}
	return frangipani.Holding{}, false
}

// served checks that clerk i, serving an operation on key that needs
// mode, does so under a lock of its own whose lease is running, while no
// other clerk holds a conflicting lock on key with its lease running.
func (s *locksSys) served(i int, key string, mode frangipani.Mode) {
	own := slices.IndexFunc(s.clerks[i].ck.Holdings(), func(h frangipani.Holding) bool { return h.Key == key })
	if own < 0 || s.w.Now() >= s.clerks[i].ck.Holdings()[own].LeaseEnd {
		if s.err == nil {
			s.err = fmt.Errorf("lock safety: clerk %d serves %q (%v) at %v without a lock whose lease is running", i, key, mode, s.w.Now())
		}
		return
	}
	for j := range s.clerks {
		if h, ok := s.holding(j, key); ok && j != i && conflict(mode, h.Mode) && s.err == nil {
			s.err = fmt.Errorf("lock safety: clerk %d serves %q (%v) while clerk %d holds it (%v) until %v", i, key, mode, j, h.Mode, h.LeaseEnd)
		}
	}
}

// check returns the first breach served, or two clerks holding
// conflicting locks with their leases running.
func (s *locksSys) check() error {
	if s.err != nil {
		return s.err
	}
	for i := range s.clerks {
		a, ok := s.holding(i, locksKey)
		if !ok {
			continue
		}
		for j := i + 1; j < len(s.clerks); j++ {
			if b, ok := s.holding(j, locksKey); ok && conflict(a.Mode, b.Mode) {
				return fmt.Errorf("lock safety: clerks %d (%v, until %v) and %d (%v, until %v) hold %q at once", i, a.Mode, a.LeaseEnd, j, b.Mode, b.LeaseEnd, locksKey)
			}
		}
	}
	return nil
}

// call calls cl's next operation.
func (s *locksSys) call(cl *locksClerk) {
	op := cl.ops[0]
	cl.ops, cl.busy = cl.ops[1:], true
	done := func() { s.returns++; cl.busy = false }
	var err error
	if op.Kind == frangipani.OpGet {
		err = cl.ck.Get(locksKey, func(string, int64, error) { done() })
	} else {
		err = cl.ck.Put(locksKey, op.Value, func(error) { done() })
	}
	if err != nil {
		panic(fmt.Sprintf("search: locks: %v", err))
	}
}

// faults offers each idle clerk's next operation, and cutting each host
// off, and reconnecting it.
func (s *locksSys) faults() []Fault {
	var fs []Fault
	for _, cl := range s.clerks {
		if !cl.busy && len(cl.ops) > 0 {
			what := "put"
			if cl.ops[0].Kind == frangipani.OpGet {
				what = "get"
			}
			fs = append(fs, Fault{Name: fmt.Sprintf("clerk %d calls %s", cl.index, what), Host: cl.host, Apply: func() { s.call(cl) }})
		}
	}
	for i, h := range s.hosts {
		host := s.c.HostIndex(h)
		if s.cut[i] {
			fs = append(fs, Fault{Name: "reconnect " + h.Name(), Host: h.ID(), Apply: func() {
				s.cut[i] = false
				s.apply(fault.Fault{Kind: fault.Rejoin, Host: host})
			}})
			continue
		}
		fs = append(fs, Fault{Name: "cut " + h.Name() + " off", Budgeted: true, Host: h.ID(), Apply: func() {
			s.cut[i] = true
			s.apply(fault.Fault{Kind: fault.Isolate, Host: host})
		}})
	}
	return fs
}

// apply applies f; the faults offered are valid, so an error is a bug of
// the scenario.
func (s *locksSys) apply(f fault.Fault) {
	if err := s.c.Apply(f); err != nil {
		panic(fmt.Sprintf("search: locks: %v", err))
	}
}

// state is the digest of the hosts' state (whether each is cut off, what
// its inspectors show), the lock server's persisted Raft state, and the
// clerks' operations under way.
func (s *locksSys) state() uint64 {
	h := bytesWord(s.c.Persister(0, 0).ReadRaftState())
	for i, host := range s.hosts {
		h = mix(h, b2u(s.cut[i]))
		for _, f := range host.State() {
			h = mix(mix(h, bytesWord([]byte(f.Name))), bytesWord([]byte(f.Value)))
		}
	}
	for _, cl := range s.clerks {
		h = mix(mix(h, uint64(len(cl.ops))), b2u(cl.busy))
	}
	return h
}
