package search

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

// A System is one run under search, built afresh, from virtual time zero,
// for every replay: its world and what the search needs to know of what
// runs on it.
type System struct {
	World *sim.World
	// Faults returns the faults that may be applied now, in a fixed order
	// (the search keeps the budget); nil for none.
	Faults func() []Fault
	// AfterStep, if set, runs after every step, before Check: a client
	// acting on what it sees (offering its write to a new leader, say).
	AfterStep func()
	// Check returns the first invariant that does not hold, or nil; it is
	// called in the initial state and after every step.
	Check func() error
	// Goal, if set, reports whether the goal of a liveness-style question
	// holds ("some server applied the client's write").
	Goal func() bool
	// State returns a digest of the nodes' state, for state hashing; the
	// search adds the messages in flight and the order of the timers.
	State func() uint64
	// Cover, if set, returns the digest a guided search counts coverage
	// by (what the nodes hold: terms, logs, roles, commit indices), coarser
	// than State; else State.
	Cover func() uint64
	// RunFaults, if set, returns the faults applied so far as a run file
	// holds them.
	RunFaults func() []runfile.Fault
}

// A Fault is one fault a search may apply between two events: a crash, a
// restart, a partition, a heal; or a client's action that the search
// chooses the moment of (a write). Budgeted says whether it counts against
// the fault budget (a restart or a heal, which only undoes a fault, does
// not; a client's action is bounded by the scenario).
type Fault struct {
	Name     string
	Budgeted bool
	Apply    func()
	// Host is the world's index of the host the fault strikes (or the
	// client's action is sent to): the random walks' crash points strike
	// the host that has just acted.
	Host int
}

// A Scenario builds a System for a search: the same one for a seed, every
// time.
type Scenario struct {
	Name string
	Doc  string
	// Build builds the system for seed, with the bug of this name planted
	// ("" for none).
	Build func(seed int64, bug string) (*System, error)
	// Bugs names the bugs Build can plant.
	Bugs []string
	// Faults, Drops and Dups are the scenario's default budgets.
	Faults, Drops, Dups int
}

// A Strategy is how a search picks the schedules it explores.
type Strategy string

// The strategies.
const (
	// BFS explores every schedule breadth-first, level by level, to the
	// depth, with state hashing (unless turned off) so that no state is
	// explored twice; the first violation it finds has the fewest steps.
	BFS Strategy = "bfs"
	// DFS runs random walks, each a fresh run to the depth picking
	// among the choices at random (seeded).
	DFS Strategy = "dfs"
	// PCT runs random walks scheduled by PCT (Burckhardt et al., ASPLOS
	// 2010): each host gets a random priority, the enabled event of the
	// host of highest priority fires, and at d-1 random steps the host
	// that ran is moved below every other.
	PCT Strategy = "pct"
	// Guided runs random walks that start from the schedules that reached
	// a state of the nodes not seen before (coverage-guided, as a fuzzer
	// keeps the inputs that reach new code): a walk replays one of them,
	// picked at random, and goes on at random from there.
	Guided Strategy = "guided"
)

// Options bound a search.
type Options struct {
	Strategy Strategy
	Seed     int64 // the world's seed, and the random walks'
	Depth    int   // the most steps a schedule takes
	// Budget is the most states a search explores (each step of each
	// schedule is one state); 0: no bound but Depth (and Wall).
	Budget int
	// Wall, if positive, stops the search after that much wall time (the
	// states it explored then depend on the machine's speed).
	Wall time.Duration
	// Faults is the fault budget: how many faults a schedule may apply;
	// Drops how many messages it may drop, Dups how many requests it may
	// duplicate. -1 takes the scenario's.
	Faults, Drops, Dups int
	// NoHash turns state hashing off: BFS explores every schedule, even
	// to states it has seen; random walks do not count distinct states
	// (they never prune).
	NoHash bool
	// D is PCT's depth: the number of ordering constraints of the bugs it
	// aims at (d-1 priority change points); 0 means 2.
	D int
	// Workers is how many runs go on at once (each world on its own
	// goroutine); 0 means 1.
	Workers int
	// StopAtGoal ends the search at the first state where the goal holds.
	StopAtGoal bool
	// Bug plants the scenario's bug of this name ("" for none).
	Bug string
	// InOrder fires the events in the world's own order (Step's): the
	// search chooses only the faults, drops and duplicates between them
	// (and a scenario's client actions). The options a state offers are
	// the same, so a path found in order replays without it.
	InOrder bool
}

// validate checks o against sc and fills in the defaults.
func (o *Options) validate(sc Scenario) error {
	switch o.Strategy {
	case BFS, DFS, PCT, Guided:
	default:
		return fmt.Errorf("search: unknown strategy %q (want bfs, dfs, pct or guided)", o.Strategy)
	}
	if o.Depth <= 0 {
		return fmt.Errorf("search: depth %d is not positive", o.Depth)
	}
	if o.Budget < 0 {
		return fmt.Errorf("search: budget %d is negative", o.Budget)
	}
	if o.Budget == 0 && o.Wall <= 0 && o.Strategy != BFS {
		return fmt.Errorf("search: a %s search needs a budget of states or of wall time", o.Strategy)
	}
	if o.Faults < -1 || o.Drops < -1 || o.Dups < -1 {
		return fmt.Errorf("search: fault budget %d, drop budget %d or duplicate budget %d is negative", o.Faults, o.Drops, o.Dups)
	}
	if o.Faults == -1 {
		o.Faults = sc.Faults
	}
	if o.Drops == -1 {
		o.Drops = sc.Drops
	}
	if o.Dups == -1 {
		o.Dups = sc.Dups
	}
	if o.D == 0 {
		o.D = 2
	}
	if o.D < 1 {
		return fmt.Errorf("search: PCT depth d = %d is below 1", o.D)
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.Workers < 0 {
		return fmt.Errorf("search: %d workers", o.Workers)
	}
	if o.Bug != "" && !contains(sc.Bugs, o.Bug) {
		return fmt.Errorf("search: scenario %s has no bug %q", sc.Name, o.Bug)
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// A Path is a schedule: at each step, the index of the option taken among
// those the state offered (see Steps for what they were).
type Path []int

// String shows the path as the command line takes it: indices joined by
// commas.
func (p Path) String() string {
	s := make([]string, len(p))
	for i, x := range p {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// ParsePath reads a path written by Path.String.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return Path{}, nil
	}
	var p Path
	for _, f := range strings.Split(s, ",") {
		var x int
		if _, err := fmt.Sscan(f, &x); err != nil || x < 0 {
			return nil, fmt.Errorf("search: path step %q is not an option index", f)
		}
		p = append(p, x)
	}
	return p, nil
}

// A Found is a schedule a search found: one that breaks an invariant, or
// reaches the goal.
type Found struct {
	Path  Path
	Steps []string // what each step did
	Err   error    // the violated invariant (nil for a goal)
	// Summary is the run's summary after the last step: a replay of the
	// path ends with the same.
	Summary sim.Summary
}

// A Result is what a search did and found.
type Result struct {
	Scenario  string
	Options   Options
	States    int  // states explored (each counted once per visit)
	Distinct  int  // distinct state hashes seen (none without hashing)
	Schedules int  // schedules run: random walks, or BFS replays
	MaxDepth  int  // the deepest level reached
	Complete  bool // BFS explored every state to the depth (no budget cut it short)
	Wall      time.Duration
	Violation *Found // the first violation found, or nil
	Goal      *Found // the first state where the goal held, or nil
}

// StatesPerSecond returns the states explored per wall second.
func (r Result) StatesPerSecond() float64 {
	return float64(r.States) / max(r.Wall.Seconds(), 1e-9)
}

// option is one thing a state lets the search do next.
type option struct {
	choice sim.Choice
	fate   sim.Fate // for a message: delivered, dropped or duplicated
	fault  *Fault
}

// run is one schedule under way on a fresh system.
type run struct {
	sys                 *System
	buf                 []sim.Choice
	opts                []option
	faults, drops, dups int // used so far
	o                   *Options
	steps               []string // kept only when asked
	keep                bool
	err                 error
}

// start builds a fresh system for a run of sc under o.
func start(sc Scenario, o *Options, keep bool) (*run, error) {
	sys, err := sc.Build(o.Seed, o.Bug)
	if err != nil {
		return nil, err
	}
	r := &run{sys: sys, o: o, keep: keep}
	r.err = r.check()
	return r, nil
}

// check runs the system's invariants.
func (r *run) check() error {
	if r.sys.Check == nil {
		return nil
	}
	return r.sys.Check()
}

// options lists what the state offers, in a fixed order: the enabled
// events, then dropping each enabled message (within the drop budget),
// then duplicating each that can be (within the duplicate budget), then
// the faults (within the fault budget).
func (r *run) options() []option {
	r.buf = r.sys.World.Enabled(r.buf)
	r.opts = r.opts[:0]
	for _, c := range r.buf {
		r.opts = append(r.opts, option{choice: c})
	}
	if r.drops < r.o.Drops {
		for _, c := range r.buf {
			if c.Message {
				r.opts = append(r.opts, option{choice: c, fate: sim.Drop})
			}
		}
	}
	if r.dups < r.o.Dups {
		for _, c := range r.buf {
			if c.Info.Duplicable {
				r.opts = append(r.opts, option{choice: c, fate: sim.Duplicate})
			}
		}
	}
	if r.sys.Faults != nil {
		for _, f := range r.sys.Faults() {
			if !f.Budgeted || r.faults < r.o.Faults {
				r.opts = append(r.opts, option{fault: &f})
			}
		}
	}
	return r.opts
}

// take does option i of the latest options, then lets the system act
// and checks it.
func (r *run) take(i int) {
	op := r.opts[i]
	if r.keep {
		r.steps = append(r.steps, op.String())
	}
	defer func() {
		// A node that panics (a planted bug's index out of range, say) or a
		// world that livelocks is a finding like a broken invariant.
		if p := recover(); p != nil && r.err == nil {
			r.err = fmt.Errorf("panic: %v", p)
		}
	}()
	switch {
	case op.fault != nil:
		if op.fault.Budgeted {
			r.faults++
		}
		op.fault.Apply()
	default:
		switch op.fate {
		case sim.Drop:
			r.drops++
		case sim.Duplicate:
			r.dups++
		}
		r.sys.World.Choose(op.choice, op.fate)
	}
	if r.sys.AfterStep != nil {
		r.sys.AfterStep()
	}
	if r.err == nil {
		r.err = r.check()
	}
}

// event reports whether op fires an event as it is (not a drop, a
// duplicate or a fault).
func (op option) event() bool { return op.fault == nil && op.fate == sim.Deliver }

// String describes the option.
func (op option) String() string {
	switch {
	case op.fault != nil:
		return op.fault.Name
	case op.fate == sim.Drop:
		return "drop " + strings.TrimPrefix(op.choice.String(), "deliver ")
	case op.fate == sim.Duplicate:
		return "duplicate and deliver " + strings.TrimPrefix(op.choice.String(), "deliver ")
	}
	return op.choice.String()
}

// goal reports whether the system's goal holds.
func (r *run) goal() bool { return r.sys.Goal != nil && r.sys.Goal() }

// errReplay is a path that asks for an option its state does not offer.
var errReplay = errors.New("search: the path does not replay")

// replay runs path on a fresh system, stopping early at a violation.
func replay(sc Scenario, o *Options, path Path, keep bool) (*run, error) {
	r, err := start(sc, o, keep)
	if err != nil {
		return nil, err
	}
	for k, i := range path {
		if r.err != nil {
			return r, fmt.Errorf("%w: it breaks an invariant at step %d of %d: %v", errReplay, k, len(path), r.err)
		}
		if opts := r.options(); i >= len(opts) {
			return r, fmt.Errorf("%w: step %d asks for option %d of %d", errReplay, k, i, len(opts))
		}
		r.take(i)
	}
	return r, nil
}

// found describes the run r of path.
func (r *run) found(path Path, err error) *Found {
	return &Found{Path: append(Path(nil), path...), Steps: r.steps, Err: err, Summary: r.sys.World.Summary()}
}

// Replay runs path in sc's system under o and returns what it found: the
// violation at its end, if any, the steps and the run's summary.
func Replay(sc Scenario, o Options, path Path) (*Found, error) {
	if err := o.validate(sc); err != nil {
		return nil, err
	}
	r, err := replay(sc, &o, path, true)
	if err != nil {
		return nil, err
	}
	return r.found(path, r.err), nil
}

// Search explores sc's schedules under o.
func Search(sc Scenario, o Options) (Result, error) {
	if err := o.validate(sc); err != nil {
		return Result{}, err
	}
	clock := startStopwatch(o.Wall)
	var res Result
	var err error
	switch o.Strategy {
	case BFS:
		res, err = bfs(sc, &o, clock)
	default:
		res, err = walks(sc, &o, clock)
	}
	res.Scenario, res.Options, res.Wall = sc.Name, o, clock.elapsed()
	if err != nil {
		return res, err
	}
	// The found schedules again, with their steps described.
	for _, f := range []**Found{&res.Violation, &res.Goal} {
		if *f == nil {
			continue
		}
		r, err := replay(sc, &o, (*f).Path, true)
		if err != nil {
			return res, err
		}
		**f = *r.found((*f).Path, (*f).Err)
	}
	return res, nil
}
