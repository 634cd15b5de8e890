package kit

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/replab/replab/sim/simtest"
)

// A testRun is what a run showed of one top-level test, whoever's it is:
// how often it started and ended, the seeds its subtests ran, whether its
// replay check passed, and the first failure it showed.
type testRun struct {
	runs, ends int
	end        string  // the last end: pass, fail or skip
	seeds      []int64 // of its seed=N subtests, as they started
	replayed   bool    // a replay=N subtest passed
	failure    string  // the first sign of a failure in it, "" if none
}

var (
	seedTest   = regexp.MustCompile(`^seed=(-?\d+)$`)
	replayTest = regexp.MustCompile(`^replay=(-?\d+)$`)
	failOutput = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
)

// addRun notes what e, an event of a test, shows of the test's run.
func (g *grader) addRun(e event) {
	top, sub, _ := strings.Cut(e.Test, "/")
	tr := g.runs[top]
	if tr == nil {
		tr = &testRun{}
		g.runs[top] = tr
		g.order = append(g.order, top)
	}
	switch {
	case e.Action == "run" && sub == "":
		tr.runs++
	case e.Action == "run":
		if m := seedTest.FindStringSubmatch(sub); m != nil {
			seed, _ := strconv.ParseInt(m[1], 10, 64)
			tr.seeds = append(tr.seeds, seed)
		}
	case (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") && sub == "":
		tr.ends++
		tr.end = e.Action
	case e.Action == "pass" && replayTest.MatchString(sub):
		tr.replayed = true
	case e.Action == "fail" && tr.failure == "":
		tr.failure = fmt.Sprintf("its subtest %s failed", sub)
	case e.Action == "output" && tr.failure == "":
		out := strings.TrimSpace(e.Output)
		if failOutput.MatchString(out) || failedLine.MatchString(out) {
			tr.failure = fmt.Sprintf("its output says %q", out)
		}
	}
}

// checkShape names in the sheet what makes the run other than one whole
// run of the catalogue: more than one run of the package, a test run more
// than once, a passing test that did not run the seeds (the grader's, or
// those of the run's other tests) or its replay check, a pass that a
// failure in the same run contradicts, and, for a run the grader made
// (own), a pass the kit's record of the run does not show.
func (g *grader) checkShape(own *ownRun) {
	s := g.sheet
	var p problems
	defer func() { s.Shape = p.list() }()
	problem := func(format string, args ...any) { p.add("", fmt.Sprintf(format, args...)) }
	if n := max(g.starts, g.ends); n > 1 {
		problem("the input holds %d runs of %s, not one: a sheet grades one run", n, s.Package)
	}
	failed, cut := false, false // a test failed, or started and did not end
	for _, name := range g.order {
		tr := g.runs[name]
		failed = failed || tr.end == "fail"
		cut = cut || tr.ends < tr.runs
	}
	switch {
	case s.Status == "ok" && failed:
		problem("the package passed, yet a test of it failed")
	case s.Status == "ok" && g.failOut:
		problem("the package passed, yet its output says FAIL")
	case s.Status == "FAIL" && !failed && !cut:
		problem("the package failed, yet no test of it failed or was cut short")
	}
	var first string // the first passing test, whose seeds the others ran
	if own != nil {
		s.Seeds = own.seeds
	}
	for _, r := range s.Tests {
		tr := g.runs[r.Test]
		if tr == nil {
			continue
		}
		if n := max(tr.runs, tr.ends); n > 1 {
			p.add(r.Test, fmt.Sprintf("ran %d times: a sheet grades one run of each test", n))
		}
		if r.Status != "pass" {
			continue
		}
		if own == nil && first == "" && len(tr.seeds) > 0 {
			first, s.Seeds = r.Test, tr.seeds
		}
		switch {
		case tr.failure != "":
			p.add(r.Test, "passed, yet "+tr.failure)
		case len(tr.seeds) == 0:
			p.add(r.Test, "passed without running a seed (no seed=N subtest)")
		case own != nil && !slices.Equal(tr.seeds, s.Seeds):
			p.add(r.Test, fmt.Sprintf("ran seeds %s, not the seeds the grader chose (%s)", seedList(tr.seeds), seedList(s.Seeds)))
		case !slices.Equal(tr.seeds, s.Seeds):
			p.add(r.Test, fmt.Sprintf("ran seeds %s, where %s ran %s: one run runs every test on the same seeds", seedList(tr.seeds), first, seedList(s.Seeds)))
		case !tr.replayed:
			p.add(r.Test, fmt.Sprintf("passed without its replay check (no replay=%d subtest passed)", tr.seeds[0]))
		}
	}
	if own != nil {
		g.checkRecords(&p, own.records)
	}
}

// checkRecords names each passing test whose pass the kit's record of the
// run does not show: the test printed its result, which the code under
// test can forge, and recorded it, which that code cannot.
func (g *grader) checkRecords(p *problems, records []simtest.GradeRecord) {
	s := g.sheet
	for _, r := range s.Tests {
		var recs []simtest.GradeRecord
		for _, rec := range records {
			if rec.Test == r.Test {
				recs = append(recs, rec)
			}
		}
		switch {
		case len(recs) > 1:
			p.add(r.Test, fmt.Sprintf("has %d outcomes in the kit's record of the run, not one", len(recs)))
		case r.Status != "pass":
		case len(recs) == 0:
			p.add(r.Test, "passed in the run's output, yet the kit's record of the run has no outcome of it: output forged by the code under test?")
		case !recs[0].Passed:
			p.add(r.Test, "passed in the run's output, yet the kit's record says it failed")
		case !slices.Equal(recs[0].Seeds, s.Seeds):
			p.add(r.Test, fmt.Sprintf("passed in the run's output, yet the kit's record says it ran seeds %s, not the grader's (%s)", seedList(recs[0].Seeds), seedList(s.Seeds)))
		case !recs[0].Replayed:
			p.add(r.Test, "passed in the run's output, yet the kit's record says its replay check did not pass")
		}
	}
}

// seedList writes seeds as a list: 1, 2, 3.
func seedList(seeds []int64) string {
	var out []string
	for _, seed := range seeds {
		out = append(out, strconv.FormatInt(seed, 10))
	}
	return strings.Join(out, ", ")
}

// problems gathers what is wrong with a run, each problem once, with the
// tests that have it.
type problems struct {
	order []string            // the problems, as first found
	tests map[string][]string // by problem, the tests that have it
}

// add notes that test (or the run, if test is "") has the problem what.
func (p *problems) add(test, what string) {
	if p.tests == nil {
		p.tests = map[string][]string{}
	}
	if _, ok := p.tests[what]; !ok {
		p.order = append(p.order, what)
	}
	if test != "" {
		p.tests[what] = append(p.tests[what], test)
	}
}

// list returns each problem as a line that names the tests that have it.
func (p *problems) list() []string {
	var out []string
	for _, what := range p.order {
		switch tests := p.tests[what]; len(tests) {
		case 0:
			out = append(out, what)
		case 1:
			out = append(out, tests[0]+" "+what)
		default:
			out = append(out, fmt.Sprintf("%d tests (%s) %s", len(tests), strings.Join(tests, ", "), what))
		}
	}
	return out
}
