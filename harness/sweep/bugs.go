package sweep

import (
	"fmt"

	"github.com/replab/replab/sim/plant"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/logorder"
)

// A Bug is one of the mistakes a service's package can switch back on
// (its PlantedBugs), so that a sweep can show it finds it.
type Bug struct {
	Service string // the package that plants it: raft, rsm, shardtxn, logorder or frangipani
	Name    string // the package's name for it
}

// String names the bug with its package: "raft: votedFor not persisted".
func (b Bug) String() string { return b.Service + ": " + b.Name }

// Bugs returns every planted bug of every service, package by package
// from the lowest layer up, each package's in its own order.
func Bugs() []Bug {
	var out []Bug
	add := func(service string, name string) { out = append(out, Bug{service, name}) }
	for _, b := range raft.PlantedBugs() {
		add("raft", b.Name)
	}
	for _, b := range rsm.PlantedBugs() {
		add("rsm", b.Name)
	}
	for _, b := range shardtxn.PlantedBugs() {
		add("shardtxn", b.Name)
	}
	for _, b := range logorder.PlantedBugs() {
		add("logorder", b.Name)
	}
	for _, b := range frangipani.PlantedBugs() {
		add("frangipani", b.Name)
	}
	return out
}

// Planted returns sc with b switched on in the services it runs, or an
// error if sc runs none of b's package: the key/value scenarios plant
// Raft's and rsm's bugs, the Raft scenarios Raft's, the others their own
// service's.
func Planted(sc Scenario, b Bug) (Scenario, error) {
	if sc.plant != nil {
		if p, ok := sc.plant(b); ok {
			return p, nil
		}
	}
	return Scenario{}, fmt.Errorf("scenario %s cannot plant %q: it plants no bug of package %s", sc.Name, b.Name, b.Service)
}

// FirstFailure runs sc from seed 1 up, parallel seeds at a time (as a
// sweep runs them), until a seed fails or seeds seeds have passed. It
// returns the first failing seed's outcome, or false. The answer does not
// depend on parallel: every seed of a batch runs, and the lowest failing
// one is reported.
func FirstFailure(sc Scenario, seeds int64, parallel int) (Outcome, bool) {
	if parallel <= 0 {
		parallel = 1
	}
	for first := int64(1); first <= seeds; first += int64(parallel) {
		var batch []int64
		for s := first; s < first+int64(parallel) && s <= seeds; s++ {
			batch = append(batch, s)
		}
		for _, o := range Run(sc, batch, parallel, "", nil) {
			if !o.OK() {
				return o, true
			}
		}
	}
	return Outcome{}, false
}

// planter returns a scenario's plant: it switches a bug on in a copy of
// spec, by plant, and builds the scenario from the copy by build.
func planter[S any](spec S, build func(S) Scenario, plant func(*S, Bug) bool) func(Bug) (Scenario, bool) {
	return func(b Bug) (Scenario, bool) {
		p := spec
		ok := plant(&p, b)
		return build(p), ok
	}
}

// plantRaft switches b on in c if it is one of Raft's.
func (b Bug) plantRaft(c *raft.Config) bool { return plantIn(b, "raft", raft.PlantedBugs(), c) }

// plantRSM switches b on in c if it is one of rsm's or of its Raft's.
func (b Bug) plantRSM(c *rsm.Config) bool {
	return b.plantRaft(&c.Raft) || plantIn(b, "rsm", rsm.PlantedBugs(), c)
}

// plantShardTxn switches b on in c if it is one of shardtxn's.
func (b Bug) plantShardTxn(c *shardtxn.Config) bool {
	return plantIn(b, "shardtxn", shardtxn.PlantedBugs(), c)
}

// plantLogOrder switches b on in c if it is one of logorder's.
func (b Bug) plantLogOrder(c *logorder.Config) bool {
	return plantIn(b, "logorder", logorder.PlantedBugs(), c)
}

// plantFrangipani switches b on in c if it is one of frangipani's.
func (b Bug) plantFrangipani(c *frangipani.Config) bool {
	return plantIn(b, "frangipani", frangipani.PlantedBugs(), c)
}

// plantIn switches b on in c if it is one of service's bugs.
func plantIn[C any](b Bug, service string, bugs []plant.Bug[C], c *C) bool {
	if b.Service != service {
		return false
	}
	pb, ok := plant.Named(bugs, b.Name)
	if ok {
		pb.Plant(c)
	}
	return ok
}
