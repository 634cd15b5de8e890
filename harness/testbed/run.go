package testbed

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// A Run is one run, as data.
type Run struct {
	// Name names the run (a scenario's name), in file names and messages.
	Name string
	Seed int64
	// Deploy is the Raft groups and their placement on hosts.
	Deploy cluster.Config
	// Network is the network's parameters and modes at the start.
	Network Network
	// Workload starts the clients.
	Workload Workload
	// Nemesis is the faults.
	Nemesis Nemesis
	// Length is how long the clients work under the nemesis; then every
	// link heals, every dead host restarts, the network's modes are set
	// back to Network's, and the clients stop.
	Length time.Duration
	// Settle bounds, from that last heal, the clients' last operations
	// ending and every drain holding.
	Settle time.Duration
	// Progress bounds progress after each heal: an operation begun at or
	// after the heal must complete within Progress, and, if the clients
	// can probe (see Prober), a fresh client's operation must complete
	// within Progress of the end of settling. Zero checks neither.
	Progress time.Duration
	// Starve, if positive, bounds how long a client that keeps trying
	// may go without an operation completing while the run is healed
	// (within Progress of a heal the nemesis declares, after the last
	// heal, or all along with no nemesis): a client past it starves, a
	// stall that names the client (Stall.Client). A workload tells the
	// run of its clients' tries by Env.Tried.
	Starve time.Duration
	// StarveAfter is the time the service is given to recover after a
	// heal (and after the clients start) before Starve's bound begins to
	// run.
	StarveAfter time.Duration
	// Drains must all hold within Settle of the last heal (every lock
	// released, say).
	Drains []Drain
	// Checks judge the run once it has settled, in order; the first that
	// finds a problem gives the run's verdict.
	Checks []Check
	// Drawn is what the seed drew of the configuration, in the order it is
	// printed; nil for a fixed configuration.
	Drawn []Param
	// MaxEvents, if positive, bounds the events the run may fire: past it
	// the run fails as a storm (a message storm that would otherwise run
	// for hours), at the virtual time it was reached.
	MaxEvents uint64
	// Trace, if set, receives the world's event trace. A *Recording
	// asks for the run file as well (see Recording).
	Trace io.Writer
	// Dir, if set, is where a check draws a violation.
	Dir string
	// Record, if set, records the run into the record's File: every event,
	// the hosts' states, the faults, the operations and the verdict. It
	// changes nothing in the run: the trace hash is the same.
	Record bool
}

// Network is a network's parameters and its modes at the start of a run.
type Network struct {
	// Params replaces labrpc's default parameters when set.
	Params *labrpc.Params
	// Modes are switched on through the monkey before the clients start,
	// so the fault log shows them.
	Modes chaos.Modes
	// Rule, if set, is a delay rule put in force through the monkey,
	// named RuleName, before the clients start, for the whole run (heals
	// leave it): a class of messages the network holds back.
	Rule     labrpc.DelayRule
	RuleName string
}

// A Param is one drawn parameter of a run's configuration, as printed.
type Param struct{ Name, Value string }

// A Drain is a condition a run must reach after its last heal.
type Drain struct {
	// Holds reports whether the condition holds.
	Holds func(e *Env) bool
	// Says says what did not drain, for the verdict.
	Says func(e *Env) string
}

// A Check judges a settled run.
type Check func(e *Env) (Verdict, error)

// A Verdict is what a check found.
type Verdict struct {
	Problem string // "" if the check passed
	HTML    string // a drawing of the violation, if the check made one
	// Kind is the kind of violation, short ("linearizability",
	// "serializability", "bank"); "" leaves it to ProblemKind.
	Kind string
	// Ops are the operations the violation names, by their index in the
	// workload's history (OpLister's order): the violating one first, then
	// its witnesses.
	Ops []int
}

// A Stall is a heal after which no operation begun completed in time,
// or a client that starved (Run.Starve).
type Stall struct {
	// Heal is when the heal was, in virtual time; for a client that
	// starved, when its fruitless tries began (or the heal, if later).
	Heal  time.Duration
	Bound time.Duration
	// Fresh is true for a fresh client's probe after the last heal.
	Fresh bool
	// Client names the client that starved, if one did; At is when its
	// last fruitless try ended, past Heal+Bound.
	Client string
	At     time.Duration
}

// Moment is when the stall was found: when the bound ran out, or when a
// starving client's last fruitless try ended.
func (s Stall) Moment() time.Duration {
	if s.Client != "" {
		return s.At
	}
	return s.Heal + s.Bound
}

func (s Stall) String() string {
	if s.Client != "" {
		return fmt.Sprintf("stall: %s starved: it kept trying from %v, the network healed, and nothing of it completed by %v, past the bound of %v", s.Client, s.Heal, s.At, s.Bound)
	}
	if s.Fresh {
		return fmt.Sprintf("stall: a fresh client's operation did not complete within %v of settling at %v", s.Bound, s.Heal)
	}
	return fmt.Sprintf("stall: no operation begun after the heal at %v completed within %v", s.Heal, s.Bound)
}

// A Recording is a trace writer that asks for the run file too: given as
// a run's Trace, it makes the run record itself (Run.Record) and holds the
// file after. It lets a caller that can pass only a trace writer through
// (a sweep scenario's Run) ask for the run file.
type Recording struct {
	Trace io.Writer     // where the trace goes, if anywhere
	File  *runfile.File // the run file, once the run is over
}

// Write writes p to the trace, if any.
func (rc *Recording) Write(p []byte) (int, error) {
	if rc.Trace == nil {
		return len(p), nil
	}
	return rc.Trace.Write(p)
}

// A Record is what a run did.
type Record struct {
	Name  string
	Seed  int64
	Drawn []Param
	// Problem is the verdict: "" if the run passed.
	Problem string
	// Kind is the problem's kind: a check's (Verdict.Kind), or one of the
	// run's own (KindStall, KindStorm, ...); "" if the run passed.
	Kind string
	// Culprits are the operations the problem names, if any (Verdict.Ops).
	Culprits []int
	HTML     string // a check's drawing of the violation
	// Stalls are the heals after which progress did not come in time.
	Stalls   []Stall
	FaultLog fault.Log
	// Applied is what the nemesis did, its schedule's faults and its
	// reactive part's, as steps on the schedule's clock (from the moment
	// the clients started): the nemesis as a schedule alone, which
	// replays it without reacting (see Nemesis.Reactive).
	Applied []chaos.Step
	// Attempts are the faults the nemesis asked for, applied or not (a
	// kill of a dead host, one Nemesis.Skip names), in order: what Skip
	// numbers.
	Attempts []chaos.Step
	Ops      int // the operations the checks judged
	Summary  sim.Summary
	// World is the run's world, for a caller that looks further (nil if
	// the run could not be built).
	World *sim.World
	// File is the run written down, if Run.Record asked for it.
	File *runfile.File
}

// OK reports whether the run passed.
func (r *Record) OK() bool { return r.Problem == "" }

// Env is a run in progress, as its workload, nemesis, drains and checks
// see it.
type Env struct {
	Run     *Run
	World   *sim.World
	Cluster *cluster.Cluster
	// Ops is how many operations the checks judge; a workload's check sets
	// it.
	Ops int

	mark    time.Duration // operations begun at or after mark count
	since   int           // operations begun at or after mark that completed
	problem string        // the first problem Fail was told of
	kind    string        // and its kind
	start   time.Duration // when the nemesis started: the schedule's zero
	healed  time.Duration // when the run healed at its end (0: not yet)
	// trying are the clients that keep trying (Tried), by name: when
	// their first try since their last completed operation began.
	trying  map[string]time.Duration
	starved *Stall // the first client that starved
}

// Calm reports whether the run is in a calm: within Progress of a heal
// the nemesis declared, when no fault may strike (a reactive nemesis
// holds its strikes then).
func (e *Env) Calm() bool {
	now := e.World.Now() - e.start
	for _, h := range e.Run.Nemesis.Heals {
		if now >= h && now < h+e.Run.Progress {
			return true
		}
	}
	return false
}

// Fail tells the run of a problem seen as it happens (a node applying a
// command another node applied differently at its index, say): the run
// ends after the event in progress, with the first such problem as its
// verdict.
func (e *Env) Fail(problem string) { e.FailAs(ProblemKind(problem), problem) }

// FailAs is Fail, for a problem of the kind given (KindStorm, say).
func (e *Env) FailAs(kind, problem string) {
	if e.problem == "" {
		e.problem, e.kind = problem, kind
	}
}

// failed reports whether Fail has been called.
func (e *Env) failed() bool { return e.problem != "" }

// runUntil runs the world until cond holds, Fail is called, or limit has
// passed; it reports whether cond holds.
func (e *Env) runUntil(cond func() bool, limit time.Duration) bool {
	e.World.RunUntil(func() bool { return e.failed() || cond() }, limit)
	return !e.failed() && cond()
}

// Completed tells the run that an operation begun at start has completed:
// the progress checks count it.
func (e *Env) Completed(start time.Duration) {
	if start >= e.mark {
		e.since++
	}
}

// Tried tells the run that a try by client, begun at start, has ended,
// completed or not: a client whose tries keep failing for longer than
// Run.Starve while the run is healed starves, and the run fails then.
func (e *Env) Tried(client string, start time.Duration, completed bool) {
	if e.Run.Starve <= 0 {
		return
	}
	if completed {
		delete(e.trying, client)
		return
	}
	if e.trying == nil {
		e.trying = map[string]time.Duration{}
	}
	since, ok := e.trying[client]
	if !ok {
		since = start
		e.trying[client] = since
	}
	healed, ok := e.healedSince()
	if !ok {
		return
	}
	since = max(since, healed+e.Run.StarveAfter)
	if now := e.World.Now(); now-since > e.Run.Starve {
		if e.starved == nil {
			e.starved = &Stall{Heal: since, Bound: e.Run.Starve, Client: client, At: now}
		}
		e.FailAs(KindStall, e.starved.String())
	}
}

// healedSince returns since when the run has been healed, if it is now:
// within Progress of a heal the nemesis declares, after the run's last
// heal, or, with no nemesis, since the clients started.
func (e *Env) healedSince() (time.Duration, bool) {
	now, n := e.World.Now(), e.Run.Nemesis
	switch {
	case e.healed > 0:
		return e.healed, true
	case len(n.Schedule) == 0 && n.Reactive == nil:
		return e.start, true
	}
	for _, h := range n.Heals {
		if at := e.start + h; now >= at && now < at+e.Run.Progress {
			return at, true
		}
	}
	return 0, false
}

// A Workload starts a run's clients.
type Workload interface {
	// Start starts the clients (after any setup they need, such as
	// opening a bank's accounts, which may run the world).
	Start(e *Env) (Load, error)
}

// A Resizer is a workload whose clients can be made fewer (to shrink a
// failing run): it has clients of one or more kinds (a key/value
// workload's clients and readers), Counts says how many of each, and
// Resize sets them, before the run starts.
type Resizer interface {
	Counts() []int
	Resize(counts []int) error
}

// A Load is clients at work.
type Load interface {
	// Stop asks every client to stop after its current operation.
	Stop()
	// Finished reports whether every client has stopped.
	Finished() bool
}

// A Prober is a Load that can start one operation of a fresh client, to
// show, after the last heal, that the service serves a newcomer.
type Prober interface {
	Probe(e *Env, done func()) error
}

// Execute carries the run out. The error says why the run could not be
// carried out as given; what the system did wrong is the record's
// problem.
func (r Run) Execute() (out *Record, err error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	w := sim.NewWorld(r.Seed)
	w.SetTraceWriter(r.Trace)
	rec := &Record{Name: r.Name, Seed: r.Seed, Drawn: r.Drawn, World: w}
	if rc, ok := r.Trace.(*Recording); ok {
		w.SetTraceWriter(rc.Trace)
		r.Record = true
		defer func() { rc.File = rec.File }()
	}
	w.SetEventLimit(r.MaxEvents)
	var recorder *runfile.Recorder
	if r.Record {
		recorder = runfile.NewRecorder(w)
		w.SetRecorder(recorder)
	}
	c, err := cluster.New(w, r.Deploy)
	if err != nil {
		return nil, fmt.Errorf("%s: deploying: %w", r.Name, err)
	}
	e := &Env{Run: &r, World: w, Cluster: c}
	from, to := -1, -1 // the nemesis's entries in the fault log
	defer func() {
		rec.FaultLog, rec.Summary, rec.Ops = c.Log(), w.Summary(), e.Ops
		if recorder != nil && (out != nil || rec.Kind == KindPanic) {
			w.SetRecorder(nil)
			rec.File = r.runFile(recorder, e, rec)
		}
		rec.Applied = applied(rec.FaultLog, from, to, e.start)
	}()
	defer func() {
		if p := recover(); p != nil {
			s, ok := p.(sim.Storm)
			if !ok {
				// A node's panic: the caller reports it with its stack; a
				// recording keeps the run up to it.
				rec.Problem, rec.Kind = fmt.Sprintf("panic: %v", p), KindPanic
				panic(p)
			}
			rec.Problem, rec.Kind, out, err = s.Error(), KindStorm, rec, nil
		}
	}()
	if r.Network.Params != nil {
		if err := c.Net().SetParams(*r.Network.Params); err != nil {
			return nil, fmt.Errorf("%s: network: %w", r.Name, err)
		}
	}
	for _, f := range r.Network.Modes.Faults() {
		if err := c.Apply(f); err != nil {
			return nil, fmt.Errorf("%s: network: %w", r.Name, err)
		}
	}
	if r.Network.Rule != nil {
		if err := c.Monkey().SetDelayRule(r.Network.RuleName, r.Network.Rule); err != nil {
			return nil, fmt.Errorf("%s: network: %w", r.Name, err)
		}
	}
	load, err := r.Workload.Start(e)
	if err != nil {
		rec.Problem = fmt.Sprintf("starting the clients: %v", err)
		rec.Kind = ProblemKind(rec.Problem)
		return rec, nil
	}
	e.start, from = w.Now(), len(c.Log())
	stop, err := r.Nemesis.start(e, &rec.Attempts)
	if err != nil {
		return nil, fmt.Errorf("%s: nemesis: %w", r.Name, err)
	}
	for _, h := range r.Nemesis.Heals {
		r.watch(e, rec, e.start+h)
	}
	fail := func(kind, format string, args ...any) (*Record, error) {
		rec.Problem, rec.Kind = fmt.Sprintf(format, args...), kind
		return rec, nil
	}
	failed := func() (*Record, error) {
		if e.starved != nil {
			rec.Stalls = append(rec.Stalls, *e.starved)
		}
		return fail(e.kind, "%s", e.problem)
	}
	if w.RunUntil(e.failed, r.Length) {
		return failed()
	}
	stop()
	to = len(c.Log())
	if err := c.Recover(); err != nil {
		return nil, fmt.Errorf("%s: healing: %w", r.Name, err)
	}
	for _, f := range r.Network.Modes.Faults() {
		if err := c.Apply(f); err != nil {
			return nil, fmt.Errorf("%s: healing: %w", r.Name, err)
		}
	}
	load.Stop()
	healed := w.Now()
	e.healed = healed
	if len(rec.Stalls) > 0 {
		return fail(KindStall, "%v", rec.Stalls[0])
	}
	if !e.runUntil(load.Finished, r.Settle) {
		if e.failed() {
			return failed()
		}
		return fail(KindSettle, "the clients' last operations did not end within %v of the last heal, at %v", r.Settle, healed)
	}
	for _, d := range r.Drains {
		if !e.runUntil(func() bool { return d.Holds(e) }, r.Settle-(w.Now()-healed)) {
			if e.failed() {
				return failed()
			}
			return fail(KindDrain, "%s within %v of the last heal, at %v", d.Says(e), r.Settle, healed)
		}
	}
	if p, ok := load.(Prober); ok && r.Progress > 0 {
		done := false
		if err := p.Probe(e, func() { done = true }); err != nil {
			return fail(ProblemKind("probing"), "probing: %v", err)
		}
		if at := w.Now(); !e.runUntil(func() bool { return done }, r.Progress) {
			if e.failed() {
				return failed()
			}
			rec.Stalls = append(rec.Stalls, Stall{Heal: at, Bound: r.Progress, Fresh: true})
			return fail(KindStall, "%v", rec.Stalls[0])
		}
	}
	if e.failed() {
		return failed()
	}
	for _, check := range r.Checks {
		v, err := check(e)
		if err != nil {
			return fail(ProblemKind(err.Error()), "%v", err)
		}
		if v.Problem != "" {
			rec.Problem, rec.Kind, rec.Culprits, rec.HTML = v.Problem, v.Kind, v.Ops, v.HTML
			if rec.Kind == "" {
				rec.Kind = ProblemKind(rec.Problem)
			}
			return rec, nil
		}
	}
	return rec, nil
}

// applied returns the faults of log[from:to] (to < 0: to its end) as
// steps from start; none if from < 0.
func applied(log fault.Log, from, to int, start time.Duration) []chaos.Step {
	if from < 0 {
		return nil
	}
	if to < 0 {
		to = len(log)
	}
	var steps []chaos.Step
	for _, ev := range log[from:to] {
		if ev.Fault.Kind != fault.Note {
			steps = append(steps, chaos.Step{At: ev.At - start, Fault: ev.Fault})
		}
	}
	return steps
}

// watch checks progress after the heal at virtual time at: it counts the
// operations begun from then, and records a stall if none completed
// within Progress.
func (r *Run) watch(e *Env, rec *Record, at time.Duration) {
	w := e.World
	w.After(at-w.Now(), func() {
		healed := w.Now()
		e.mark, e.since = healed, 0
		w.After(r.Progress, func() {
			if e.since == 0 {
				rec.Stalls = append(rec.Stalls, Stall{Heal: healed, Bound: r.Progress})
			}
		})
	})
}

// check checks that the run can be carried out as given.
func (r *Run) check() error {
	switch {
	case r.Workload == nil:
		return fmt.Errorf("%s: no workload", r.Name)
	case r.Length < 0 || r.Settle < 0 || r.Progress < 0:
		return fmt.Errorf("%s: negative length %v, settle %v or progress %v", r.Name, r.Length, r.Settle, r.Progress)
	case r.Starve < 0 || r.StarveAfter < 0:
		return fmt.Errorf("%s: negative starvation bound %v or recovery %v", r.Name, r.Starve, r.StarveAfter)
	case len(r.Nemesis.Heals) > 0 && r.Progress == 0:
		return fmt.Errorf("%s: the nemesis declares heals but Progress is 0", r.Name)
	}
	for i, h := range r.Nemesis.Heals {
		if h < 0 || h+r.Progress > r.Length {
			return fmt.Errorf("%s: heal %d at %v: progress after it (%v) would not be seen within the run's %v", r.Name, i, h, r.Progress, r.Length)
		}
		if k := slices.IndexFunc(r.Nemesis.Schedule, func(s chaos.Step) bool { return s.At > h && s.At < h+r.Progress }); k >= 0 {
			return fmt.Errorf("%s: heal %d at %v: step %d (%v at %v) strikes within the %v progress is given", r.Name, i, h, k, r.Nemesis.Schedule[k].Fault, r.Nemesis.Schedule[k].At, r.Progress)
		}
	}
	return nil
}
