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
	events, err := readEvents(r, nil)
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
		sheet:  blankSheet(lab, pkg, cat),
		byName: map[string]*Result{}, marked: map[string]bool{}, replayNext: map[string]bool{}, runs: map[string]*testRun{},
	}
	g.sheet.Graded = own != nil
	for i := range g.sheet.Tests {
		g.byName[g.sheet.Tests[i].Test] = &g.sheet.Tests[i]
	}
	for _, e := range events {
		g.add(e)
	}
	g.total(own)
	return g.sheet, nil
}

// readEvents returns the events of a go test -json stream, and calls
// each, if not nil, with each event as it is read.
func readEvents(r io.Reader, each func(event)) ([]event, error) {
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
		if each != nil {
			each(e)
		}
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
