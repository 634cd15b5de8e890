// Package shrink makes a failing run small: delta debugging (Zeller's
// ddmin) over what a testbed run is made of, keeping a smaller run only
// if it still fails with the same kind of violation (testbed.Record's
// Kind).
//
// It tries, pass after pass until none helps:
//
//   - a shorter run (the clients work under the nemesis for less time);
//   - fewer faults: ddmin over the nemesis's faults, each strike with the
//     step that heals it specifically (a kill with its restart, an
//     isolation with its rejoin, a cut with its uncut, a mode switched on
//     with its switching off), the heals of everything (which frame the
//     progress checks) kept;
//   - fewer clients, of each kind a workload has (testbed.Resizer);
//   - fewer servers, where the run deploys one group on hosts of its own;
//   - shorter faults: each strike healed sooner.
//
// A reactive nemesis (one that watches the run and strikes at chosen
// moments) is first replaced by what it did, as a schedule (the record's
// Applied); if the run so replayed no longer fails the same way, the
// nemesis is left whole and only the run's length and clients shrink.
//
// Every candidate is a fresh run, built and carried out deterministically,
// and the candidates of a batch are judged in a fixed order, so the same
// failing run always shrinks to the same result, whatever the parallelism.
// The result is the seed's run and a runfile.Shrunk, the edits that make
// the small run from it (Apply), which a run file stores for replay.
package shrink

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
)

// A Builder builds the run to shrink afresh (a scenario's Build for its
// seed): every call returns the same run, with workload and nemesis
// objects of its own, as each candidate is carried out once.
type Builder func() (testbed.Run, error)

// DefaultMaxRuns bounds the candidates a shrink runs unless told
// otherwise.
const DefaultMaxRuns = 400

// Options are a shrink's settings.
type Options struct {
	// Parallel is how many candidates run at once (0: one per CPU). The
	// result does not depend on it.
	Parallel int
	// MaxRuns bounds the candidates run (0: DefaultMaxRuns); the shrink
	// stops with the smallest run found by then.
	MaxRuns int
	// Progress, if set, hears of each pass's end: what it tried, and the
	// smallest run so far.
	Progress func(pass string, now Size, runs int)
}

// A Size is what a run is made of, as a shrink reports it.
type Size struct {
	Faults  int           // the faults the nemesis struck (not its heals)
	Ops     int           // the operations the checks judged
	Length  time.Duration // how long the clients worked under the nemesis
	Servers int
	Clients int // 0 for a workload that does not count them (testbed.Resizer)
	// Panicked is true for a run that panicked: its faults and operations
	// are not known (a panic leaves no record).
	Panicked bool
}

func (s Size) String() string {
	out := fmt.Sprintf("%s, %s, %v, %s", plural(s.Faults, "fault"), plural(s.Ops, "operation"), s.Length, plural(s.Servers, "server"))
	if s.Panicked {
		out = fmt.Sprintf("a panic, %v, %s", s.Length, plural(s.Servers, "server"))
	}
	if s.Clients > 0 {
		out += ", " + plural(s.Clients, "client")
	}
	return out
}

// plural writes n things, with thousands spaced ("2 503 operations").
func plural(n int, thing string) string {
	digits := fmt.Sprint(n)
	for i := len(digits) - 3; i > 0 && digits[i-1] != '-'; i -= 3 {
		digits = digits[:i] + " " + digits[i:]
	}
	if n != 1 {
		thing += "s"
	}
	return digits + " " + thing
}

// A Result is a shrink's outcome.
type Result struct {
	// Kind is the kind of violation every accepted candidate showed.
	Kind     string
	Original Size
	Shrunk   Size
	// Edits make the shrunk run from the seed's run (Apply).
	Edits runfile.Shrunk
	// Record is the shrunk run's.
	Record *testbed.Record
	// Runs is how many candidates were carried out, Accepted how many of
	// them became the smallest run so far.
	Runs, Accepted int
	// Reactive is true if the nemesis was left whole: replayed as a
	// schedule, the run did not fail the same way.
	Reactive bool
}

// Shrink shrinks the failing run build builds. It refuses a run that
// passes, or one that cannot be built or carried out.
func Shrink(build Builder, opts Options) (*Result, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = DefaultMaxRuns
	}
	base, err := build()
	if err != nil {
		return nil, fmt.Errorf("building the run: %w", err)
	}
	rec, err := execute(base)
	if err != nil {
		return nil, err
	}
	if rec.OK() {
		return nil, fmt.Errorf("%s seed %d passes: there is no failure to shrink", base.Name, base.Seed)
	}
	s := &shrinker{build: build, opts: opts, kind: rec.Kind, run: base, rec: rec, unchecked: during[rec.Kind], events: eventsOf(build, rec)}
	res := &Result{Kind: s.kind, Original: sizeOf(base, rec)}
	s.report("the run as drawn")
	// A shorter run first, which makes every later candidate cheaper; then
	// the nemesis as a schedule of what it did in it.
	s.shorten()
	steps := make([]runfile.Step, len(s.rec.Applied))
	for i, st := range s.rec.Applied {
		steps[i] = runfile.Step{At: int64(st.At), Fault: st.Fault}
	}
	var heals []int64
	for _, h := range s.run.Nemesis.Heals {
		heals = append(heals, int64(h))
	}
	asSchedule := clone(s.cur)
	asSchedule.Nemesis = &runfile.Schedule{Steps: steps, Heals: heals}
	if s.try("the nemesis as a schedule", []runfile.Shrunk{asSchedule}) < 0 {
		res.Reactive = true
	}
	for round := 0; s.runs < opts.MaxRuns; round++ {
		before := s.accepted
		s.shorten()
		if res.Reactive {
			s.fewerReactiveFaults()
		} else {
			s.fewerFaults()
		}
		s.fewerClients()
		if !res.Reactive {
			s.fewerServers()
			s.shorterFaults()
		}
		if s.accepted == before {
			break
		}
	}
	if s.unchecked && s.accepted > 0 {
		// The candidates ran without their checks: the shrunk run again,
		// whole, for its record (its trace is the same: checks fire no
		// events).
		r, err := build()
		if err == nil {
			r, err = Apply(r, s.cur)
		}
		if err == nil {
			s.rec, err = execute(r)
		}
		if err != nil {
			return nil, fmt.Errorf("%s seed %d, shrunk: %w", base.Name, base.Seed, err)
		}
		s.run = r
	}
	res.Edits, res.Record, res.Runs, res.Accepted = s.cur, s.rec, s.runs, s.accepted
	res.Shrunk = sizeOf(s.run, s.rec)
	return res, nil
}

// during are the kinds of problems a run finds while it runs, before its
// checks judge it: a candidate shrinking such a problem runs without its
// checks (porcupine's search of a long history that went otherwise can
// take a minute), which cannot find it.
var during = map[string]bool{
	testbed.KindStorm: true, testbed.KindStall: true, testbed.KindSettle: true, testbed.KindDrain: true, testbed.KindPanic: true,
}

// A shrinker is a shrink in progress: the smallest failing run so far
// (cur applied to the seed's run), and its record.
type shrinker struct {
	build    Builder
	opts     Options
	kind     string
	cur      runfile.Shrunk
	run      testbed.Run
	rec      *testbed.Record
	runs     int
	accepted int
	// unchecked: the candidates run without their checks (see during).
	unchecked bool
	// events bounds a candidate's events (see eventsOf).
	events uint64
}

// eventsOf returns the bound on a candidate's events: twice the events
// the run to shrink fired, and ten thousand more, so that a candidate
// that goes otherwise and runs long (a cluster that never settles, with
// clients retrying for minutes of virtual time) fails as a storm at once,
// a kind that is not the run's, instead of costing minutes. A run that
// panicked leaves no record: it is run again, recorded, for its count.
func eventsOf(build Builder, rec *testbed.Record) uint64 {
	n := rec.Summary.Events
	if rec.Kind == testbed.KindPanic {
		if r, err := build(); err == nil {
			rc := &testbed.Recording{}
			r.Trace = rc
			func() {
				defer func() { _ = recover() }()
				_, _ = r.Execute()
			}()
			if rc.File != nil {
				n = rc.File.Summary.Events
			}
		}
	}
	return 2*n + 10_000
}

// report tells Progress of the pass just ended.
func (s *shrinker) report(pass string) {
	if s.opts.Progress != nil {
		s.opts.Progress(pass, sizeOf(s.run, s.rec), s.runs)
	}
}

// try carries out the candidates, Parallel at a time, in order, and takes
// the first that fails with the shrink's kind; it returns its index, or
// -1 if none did. Candidates past MaxRuns are not tried.
func (s *shrinker) try(pass string, cands []runfile.Shrunk) int {
	if len(cands) == 0 {
		return -1
	}
	defer s.report(pass)
	for done := 0; done < len(cands) && s.runs < s.opts.MaxRuns; {
		batch := cands[done:min(len(cands), done+s.opts.Parallel, done+s.opts.MaxRuns-s.runs)]
		runs := make([]testbed.Run, len(batch))
		recs := make([]*testbed.Record, len(batch))
		var wg sync.WaitGroup
		for i, c := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := s.build()
				if err == nil {
					r, err = Apply(r, c)
				}
				if err != nil {
					return
				}
				if s.unchecked {
					r.Checks = nil
				}
				if r.MaxEvents == 0 || r.MaxEvents > s.events {
					r.MaxEvents = s.events
				}
				runs[i] = r
				recs[i], _ = execute(r)
			}()
		}
		wg.Wait()
		s.runs += len(batch)
		for i, rec := range recs {
			if rec != nil && !rec.OK() && rec.Kind == s.kind {
				s.cur, s.run, s.rec = batch[i], runs[i], rec
				s.accepted++
				return done + i
			}
		}
		done += len(batch)
	}
	return -1
}

// Execute carries r out as Shrink does: a node's panic fails it as a
// problem of testbed.KindPanic (with no record of what the run did), where
// testbed.Run.Execute passes the panic on.
func Execute(r testbed.Run) (*testbed.Record, error) { return execute(r) }

// execute carries r out, a node's panic failing it as a problem.
func execute(r testbed.Run) (rec *testbed.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = &testbed.Record{Name: r.Name, Seed: r.Seed, Problem: fmt.Sprintf("panic: %v", p), Kind: testbed.KindPanic}, nil
		}
	}()
	return r.Execute()
}

// sizeOf returns what run r, which recorded rec, is made of.
func sizeOf(r testbed.Run, rec *testbed.Record) Size {
	sz := Size{Ops: rec.Ops, Length: r.Length, Servers: len(testbed.ServerHosts(r.Deploy)), Panicked: rec.Kind == testbed.KindPanic}
	for _, st := range rec.Applied {
		if !st.Fault.Heals() {
			sz.Faults++
		}
	}
	if rz, ok := r.Workload.(testbed.Resizer); ok {
		for _, n := range rz.Counts() {
			sz.Clients += n
		}
	}
	return sz
}

// Apply makes the edits to r, the run its scenario builds from its seed:
// the run a shrunk run file replays.
func Apply(r testbed.Run, e runfile.Shrunk) (testbed.Run, error) {
	if e.Servers > 0 {
		d := r.Deploy
		if len(d.Groups) != 1 || d.Hosts != 0 || d.Groups[0].Hosts != nil {
			return r, fmt.Errorf("%s: servers %d: only a run of one group on hosts of its own can change its servers", r.Name, e.Servers)
		}
		if e.Nemesis == nil {
			return r, fmt.Errorf("%s: servers %d: a nemesis whose faults name the servers must come with them", r.Name, e.Servers)
		}
		g := d.Groups[0]
		g.Replicas = e.Servers
		r.Deploy.Groups = []cluster.Group{g}
	}
	if e.Clients != nil {
		rz, ok := r.Workload.(testbed.Resizer)
		if !ok {
			return r, fmt.Errorf("%s: clients %v: its workload cannot change its clients", r.Name, e.Clients)
		}
		if err := rz.Resize(e.Clients); err != nil {
			return r, fmt.Errorf("%s: %w", r.Name, err)
		}
	}
	if e.Length < 0 {
		return r, fmt.Errorf("%s: length %v is negative", r.Name, time.Duration(e.Length))
	}
	if e.Length > 0 {
		r.Length = time.Duration(e.Length)
	}
	if n := e.Nemesis; n != nil {
		r.Nemesis = testbed.Nemesis{}
		for _, st := range n.Steps {
			r.Nemesis.Schedule = append(r.Nemesis.Schedule, chaos.Step{At: time.Duration(st.At), Fault: st.Fault})
		}
		for _, h := range n.Heals {
			r.Nemesis.Heals = append(r.Nemesis.Heals, time.Duration(h))
		}
	}
	if e.Skip != nil {
		r.Nemesis.Skip = slices.Clone(e.Skip)
	}
	return r, nil
}
