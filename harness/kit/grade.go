package kit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/replab/replab/sim/simtest"
)

// A Sheet is a grade sheet: every test of a lab's catalogue, with the
// points the catalogue gives it and what a `go test -json` run did with
// it. Points come from the catalogue, never from the run: a test that
// did not run scores 0, and the maximum is always the whole catalogue's.
//
// A sheet is a grade only if labsim ran the catalogue itself, in a fresh
// kit, on the student's files and on seeds it chose (GradeStudent). A
// sheet of a run a student hands in (Grade) is practice: it reads what the
// run says of itself, which can be edited.
type Sheet struct {
	Lab     string `json:"lab"`     // raft or kvraft
	Package string `json:"package"` // the package the catalogue ran in, as the run named it
	// Graded says that labsim ran the catalogue on the student's files
	// itself; if false, the sheet is practice, not a grade.
	Graded bool `json:"graded"`
	// Seeds are the seeds the grader chose, or, for practice, the seeds
	// the run's first passing test ran; SeedsFrom says where they came
	// from.
	Seeds     []int64 `json:"seeds,omitempty"`
	SeedsFrom string  `json:"seeds_from,omitempty"`
	// Files are the student's files that were graded, with their SHA-256.
	Files []File `json:"files,omitempty"`
	// Refused says why the submission was refused before anything ran:
	// each a file and line, and what is wrong there. It scores 0.
	Refused []string `json:"refused,omitempty"`
	// Shape names what is wrong with the run's shape: more than one run, a
	// test run twice or not on the seeds chosen or without its replay
	// check, a pass that a failure contradicts, a pass the kit's record of
	// the run does not show. Any of these scores the whole sheet 0.
	Shape []string `json:"shape,omitempty"`
	// Status is how the package's run ended: "ok", "FAIL", "does not
	// build", "unfinished" (the run stopped before the package did), or
	// "refused" (nothing ran).
	Status string `json:"status"`
	// BuildError is the compiler's first error when the package does not
	// build.
	BuildError string   `json:"build_error,omitempty"`
	Tests      []Result `json:"tests"` // the catalogue's, in its order
	// Checks are the kit's tests that are not the catalogue's (that the
	// package keeps to the rule of seeds, that the catalogue file is
	// whole), with how they ended: they earn nothing.
	Checks []Check `json:"checks,omitempty"`
	// Ignored are the other tests the run reported: they earn nothing,
	// whatever they print.
	Ignored []string `json:"ignored,omitempty"`
	Parts   []Part   `json:"parts"`
	Points  int      `json:"points"` // earned
	Max     int      `json:"max"`    // the whole catalogue's
}

// A File is one of the student's files that a grade ran on.
type File struct {
	Path   string `json:"path"` // slash-separated, from the kit's root
	SHA256 string `json:"sha256"`
}

// A Result is one catalogue test's outcome.
type Result struct {
	Test   string `json:"test"`
	Part   string `json:"part"`
	Max    int    `json:"max"`
	Points int    `json:"points"` // Max if it passed, else 0
	// Status is "pass", "fail", "skip", "not run" (the run never started
	// it), "unfinished" (it started and the run ended before it did: a
	// crash or a timeout), or "not the catalogue's" (it passed without
	// running the catalogue's test of that name, which would have logged
	// its part and points).
	Status  string  `json:"status"`
	Seconds float64 `json:"seconds"`
	// Seed and Replay are, for a failing test, the first seed that failed
	// and the command that replays it.
	Seed   *int64 `json:"seed,omitempty"`
	Replay string `json:"replay,omitempty"`
}

// A Check is one of the kit's tests that carry no points, and how it
// ended: "pass", "fail", "skip", or "unfinished".
type Check struct {
	Test   string `json:"test"`
	Status string `json:"status"`
}

// A Part is the points earned in one part of the lab.
type Part struct {
	Part   string `json:"part"`
	Points int    `json:"points"`
	Max    int    `json:"max"`
}

// Test statuses that Grade gives beside go test's own.
const (
	notRun       = "not run"
	unfinished   = "unfinished"
	notOurs      = "not the catalogue's"
	doesNotBuild = "does not build"
)

// event is one line of `go test -json` (see go doc test2json).
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

var (
	partLine   = regexp.MustCompile(`^\s+\S+\.go:\d+: part (\S+), (\d+) points?$`)
	failedLine = regexp.MustCompile(`FAILED with seed (-?\d+); replay with:$`)
)

// Grade reads a `go test -json` stream of a run of lab's catalogue (lab is
// "raft" or "kvraft"; "" reads it from the run's package names) and
// returns its sheet: practice, not a grade, since a run handed in may have
// been edited or written from scratch (GradeStudent grades). Lines that
// are not JSON (the go command's own messages) are skipped; a stream with
// no events at all is an error.
func Grade(r io.Reader, lab string) (*Sheet, error) {
	events, err := readEvents(r)
	if err != nil {
		return nil, err
	}
	return gradeEvents(events, lab, nil)
}

// ownRun is what a grader knows of a run it made: the seeds it chose, and
// what the kit's harness recorded of each graded test.
type ownRun struct {
	seeds   []int64
	records []simtest.GradeRecord
}

// gradeEvents returns the sheet of the run whose events these are; own is
// nil for a run handed in.
func gradeEvents(events []event, lab string, own *ownRun) (*Sheet, error) {
	var err error
	if lab == "" {
		if lab, err = guessLab(events); err != nil {
			return nil, err
		}
	}
	cat, err := Catalogue(lab)
	if err != nil {
		return nil, err
	}
	pkg, err := labPackage(events, lab)
	if err != nil {
		return nil, err
	}
	g := &grader{
		sheet:  &Sheet{Lab: lab, Package: pkg, Graded: own != nil, Status: unfinished, Parts: []Part{}},
		byName: map[string]*Result{}, marked: map[string]bool{}, replayNext: map[string]bool{}, runs: map[string]*testRun{},
	}
	for _, t := range cat {
		g.sheet.Tests = append(g.sheet.Tests, Result{Test: t.Name, Part: t.Part, Max: t.Points, Status: notRun})
	}
	for i := range g.sheet.Tests {
		g.byName[g.sheet.Tests[i].Test] = &g.sheet.Tests[i]
	}
	for _, e := range events {
		g.add(e)
	}
	g.total(own)
	return g.sheet, nil
}

// readEvents returns the events of a go test -json stream.
func readEvents(r io.Reader) ([]event, error) {
	var events []event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("kit: line %d is not go test -json output: %v", n, err)
		}
		if e.Package == "" {
			e.Package = e.ImportPath
		}
		// A build's import path may name the test binary too: "p [p.test]".
		e.Package, _, _ = strings.Cut(e.Package, " ")
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, errors.New("kit: no go test -json events in the input (run go test -json)")
	}
	return events, nil
}

// ErrWhichLab says that Grade was not told which lab a run is of and could
// not tell from the run: no package named after a lab ran tests, or more
// than one did.
var ErrWhichLab = errors.New("kit: cannot tell which lab the run is of (" + strings.Join(Kinds(), " or ") + ")")

// guessLab returns the lab whose package (named after the lab) ran tests
// or failed to build in the run.
func guessLab(events []event) (string, error) {
	found := map[string]bool{}
	for _, e := range events {
		base := path.Base(e.Package)
		// A package that failed to build names the package that did not
		// build (itself, or a dependency: the student's raft under kvraft).
		if _, ok := specs[base]; ok && (e.Test != "" || e.FailedBuild != "") {
			found[base] = true
		}
	}
	if len(found) != 1 {
		return "", ErrWhichLab
	}
	for lab := range found {
		return lab, nil
	}
	panic("unreachable")
}

// labPackage returns the one package of the run named after lab.
func labPackage(events []event, lab string) (string, error) {
	var pkgs []string
	for _, e := range events {
		if e.Action != "build-output" && e.Package != "" && path.Base(e.Package) == lab && !slices.Contains(pkgs, e.Package) {
			pkgs = append(pkgs, e.Package)
		}
	}
	switch len(pkgs) {
	case 0:
		return "", fmt.Errorf("kit: the run has no package %s: run go test -json ./%s in the kit", lab, lab)
	case 1:
		return pkgs[0], nil
	}
	return "", fmt.Errorf("kit: the run has %d packages named %s (%s): grade one at a time", len(pkgs), lab, strings.Join(pkgs, ", "))
}

// grader fills in a sheet from events.
type grader struct {
	sheet      *Sheet
	byName     map[string]*Result // the catalogue's tests
	marked     map[string]bool    // the test logged its part and points as the catalogue does
	replayNext map[string]bool    // the next output of this test is a replay command
	runs       map[string]*testRun
	order      []string // the tests of runs, as the run first named them
	// starts and ends count the package's start and end events, failOut
	// its output lines that say FAIL.
	starts, ends int
	failOut      bool
}

func (g *grader) add(e event) {
	s := g.sheet
	switch {
	case e.Action == "build-output":
		line := strings.TrimSpace(e.Output)
		if s.BuildError == "" && line != "" && !strings.HasPrefix(line, "#") {
			s.BuildError = line // the compiler's first error, whichever package it is in
		}
		return
	case e.Package != s.Package:
		return
	case e.Test == "":
		g.addPackage(e)
		return
	}
	g.addRun(e)
	top, _, sub := strings.Cut(e.Test, "/")
	r := g.byName[top]
	if r == nil && slices.Contains(specs[s.Lab].checks, top) {
		if !sub {
			g.check(top, e.Action)
		}
		return
	}
	if r == nil {
		if !slices.Contains(s.Ignored, top) {
			s.Ignored = append(s.Ignored, top)
		}
		return
	}
	switch e.Action {
	case "run":
		if r.Status == notRun {
			r.Status = unfinished
		}
	case "pass", "skip", "fail":
		if !sub && r.Status != "fail" { // a test run twice (-count) fails if either run did
			r.Status, r.Seconds = e.Action, e.Elapsed
		}
	case "output":
		out := strings.TrimRight(e.Output, "\n")
		if g.replayNext[e.Test] {
			g.replayNext[e.Test] = false
			if r.Replay == "" {
				r.Replay = strings.TrimSpace(out)
			}
		}
		if m := partLine.FindStringSubmatch(out); m != nil && !sub && m[1] == r.Part && m[2] == strconv.Itoa(r.Max) {
			g.marked[top] = true
		}
		if m := failedLine.FindStringSubmatch(out); m != nil && r.Seed == nil {
			if seed, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				r.Seed = &seed
				g.replayNext[e.Test] = true
			}
		}
	}
}

// addPackage notes an event of the package as a whole.
func (g *grader) addPackage(e event) {
	s := g.sheet
	switch {
	case e.Action == "start":
		g.starts++
	case e.Action == "output" && strings.HasPrefix(e.Output, "FAIL"):
		g.failOut = true
	case e.Action == "pass":
		g.ends++
		s.Status = "ok"
	case e.Action == "fail" && e.FailedBuild != "":
		g.ends++
		s.Status = doesNotBuild
	case e.Action == "fail":
		g.ends++
		s.Status = "FAIL"
	}
}

// check records what the run said of the kit's check test: a run starts
// it unfinished, and its pass, fail or skip ends it; a failing run of it
// (with -count) stays failed.
func (g *grader) check(test, action string) {
	s := g.sheet
	i := slices.IndexFunc(s.Checks, func(c Check) bool { return c.Test == test })
	if i < 0 {
		s.Checks = append(s.Checks, Check{Test: test, Status: unfinished})
		i = len(s.Checks) - 1
	}
	if c := &s.Checks[i]; (action == "pass" || action == "skip" || action == "fail") && c.Status != "fail" {
		c.Status = action
	}
}

// total gives each test its points and sums them by part and in all; a
// run of the wrong shape (see Sheet.Shape) earns nothing.
func (g *grader) total(own *ownRun) {
	s := g.sheet
	if s.Status == doesNotBuild && s.BuildError == "" {
		s.BuildError = "(the run shows no compiler error)"
	}
	for i := range s.Tests {
		r := &s.Tests[i]
		if r.Status == "pass" && !g.marked[r.Test] {
			r.Status = notOurs
		}
		if r.Status != "fail" {
			r.Seed, r.Replay = nil, ""
		}
	}
	g.checkShape(own)
	s.sum()
}

// sum gives each passing test its points, unless the submission was
// refused or the run's shape is wrong, and sums them by part and in all.
func (s *Sheet) sum() {
	parts := map[string]int{} // index in s.Parts
	s.Parts, s.Points, s.Max = []Part{}, 0, 0
	for i := range s.Tests {
		r := &s.Tests[i]
		r.Points = 0
		if r.Status == "pass" && len(s.Shape) == 0 && len(s.Refused) == 0 {
			r.Points = r.Max
		}
		s.Points += r.Points
		s.Max += r.Max
		j, ok := parts[r.Part]
		if !ok {
			j = len(s.Parts)
			parts[r.Part] = j
			s.Parts = append(s.Parts, Part{Part: r.Part})
		}
		s.Parts[j].Points += r.Points
		s.Parts[j].Max += r.Max
	}
}

// NotRun returns the catalogue's tests that did not run to the end.
func (s *Sheet) NotRun() []string {
	var out []string
	for _, r := range s.Tests {
		if r.Status == notRun || r.Status == unfinished {
			out = append(out, r.Test)
		}
	}
	return out
}

// Err returns nil if every test of the catalogue ran and passed, or else
// an error that says why the sheet is not full marks: the submission was
// refused, the run's shape is wrong, the package does not build, tests
// did not run (then the sheet is not a full grade), or tests failed.
func (s *Sheet) Err() error {
	switch {
	case len(s.Refused) > 0:
		return fmt.Errorf("%d of %d points: the submission is refused: %s%s", s.Points, s.Max, s.Refused[0], more(len(s.Refused)-1))
	case len(s.Shape) > 0:
		return fmt.Errorf("%d of %d points: not one whole run of the catalogue: %s%s", s.Points, s.Max, s.Shape[0], more(len(s.Shape)-1))
	case s.Status == doesNotBuild:
		return fmt.Errorf("%d of %d points: %s does not build: %s", s.Points, s.Max, s.Package, s.BuildError)
	}
	if n := len(s.NotRun()); n > 0 {
		return fmt.Errorf("%d of %d points, and not a full grade: %d of the catalogue's %d tests did not run to the end", s.Points, s.Max, n, len(s.Tests))
	}
	if s.Points < s.Max {
		return fmt.Errorf("%d of %d points: not every test passed", s.Points, s.Max)
	}
	return nil
}

// more says how many more problems there are than the one quoted.
func more(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (and 1 more)"
	}
	return fmt.Sprintf(" (and %d more)", n)
}

// WriteTable writes the sheet as a table: the package and how its run
// ended, whether the sheet is a grade or practice and the seeds, what
// refused the submission or spoiled the run's shape, a line per catalogue
// test with its part, points and result, each failing test's replay
// command under it, then the points by part and in all, and what the run
// did not show.
func (s *Sheet) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "lab %s, package %s: %s\n", s.Lab, s.Package, s.Status)
	if s.BuildError != "" {
		fmt.Fprintf(&b, "    %s\n", s.BuildError)
	}
	switch {
	case s.Graded && len(s.Refused) == 0:
		fmt.Fprintf(&b, "graded: labsim ran the catalogue on the student's files in a fresh kit, on seeds %s (%s)\n", seedList(s.Seeds), s.SeedsFrom)
	case s.Graded:
	case len(s.Seeds) > 0:
		fmt.Fprintf(&b, "PRACTICE, NOT A GRADE: this sheet reads what a run says of itself, which can be edited (labsim grade -student grades); seeds %s\n", seedList(s.Seeds))
	default:
		b.WriteString("PRACTICE, NOT A GRADE: this sheet reads what a run says of itself, which can be edited (labsim grade -student grades)\n")
	}
	for _, f := range s.Files {
		fmt.Fprintf(&b, "student's file %s sha256 %s\n", f.Path, f.SHA256)
	}
	if len(s.Refused) > 0 {
		b.WriteString("\nREFUSED, nothing ran, 0 points:\n")
		for _, p := range s.Refused {
			fmt.Fprintf(&b, "    %s\n", p)
		}
	}
	if len(s.Shape) > 0 {
		b.WriteString("\nNOT ONE WHOLE RUN OF THE CATALOGUE, 0 points:\n")
		for _, p := range s.Shape {
			fmt.Fprintf(&b, "    %s\n", p)
		}
	}
	width := len("test")
	for _, r := range s.Tests {
		width = max(width, len(r.Test))
	}
	row := func(test, part, points, result string) {
		fmt.Fprintf(&b, "%-*s  %-4s  %6s  %s\n", width, test, part, points, result)
	}
	b.WriteString("\n")
	row("test", "part", "points", "result")
	for _, r := range s.Tests {
		result := r.Status
		if r.Seed != nil {
			result += fmt.Sprintf(" (seed %d)", *r.Seed)
		}
		row(r.Test, r.Part, fmt.Sprintf("%d/%d", r.Points, r.Max), result)
		if r.Replay != "" {
			fmt.Fprintf(&b, "    replay: %s\n", r.Replay)
		}
	}
	b.WriteString("\n")
	for _, p := range s.Parts {
		fmt.Fprintf(&b, "part %-4s %d/%d\n", p.Part, p.Points, p.Max)
	}
	fmt.Fprintf(&b, "total     %d/%d\n", s.Points, s.Max)
	if n := len(s.NotRun()); n > 0 && s.Status != doesNotBuild && len(s.Refused) == 0 {
		fmt.Fprintf(&b, "\nnot a full grade: %d of the catalogue's %d tests did not run to the end (a -run subset, a crash or a timeout, or tests missing from the package); they score 0\n", n, len(s.Tests))
	}
	if len(s.Checks) > 0 {
		var checks []string
		for _, c := range s.Checks {
			checks = append(checks, c.Test+" "+c.Status)
		}
		fmt.Fprintf(&b, "the kit's checks, for no points: %s\n", strings.Join(checks, ", "))
	}
	if len(s.Ignored) > 0 {
		fmt.Fprintf(&b, "not graded, as not the catalogue's: %s\n", strings.Join(s.Ignored, " "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
