package kit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// A Sheet is a grade sheet: the outcome of every test of a catalogue that
// a `go test -json` run reported, with points by part.
type Sheet struct {
	Packages []Package `json:"packages"`
	Tests    []Result  `json:"tests"`
	Parts    []Part    `json:"parts"`
	Points   int       `json:"points"` // earned
	Max      int       `json:"max"`    // of the tests that ran
}

// A Package is how one package's tests ended: "ok", "FAIL", or "build
// failed" (then none of its tests ran).
type Package struct {
	Package string `json:"package"`
	Status  string `json:"status"`
}

// A Result is one top-level test's outcome.
type Result struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	// Part and Max are the test's part of the lab and its points, as the
	// catalogue logged them; a test outside the catalogue has neither.
	Part   string `json:"part,omitempty"`
	Max    int    `json:"max"`
	Points int    `json:"points"` // Max if it passed, else 0
	// Status is "pass", "fail", "skip", or "unfinished" when the run
	// ended before the test did (a crash or a timeout).
	Status  string  `json:"status"`
	Seconds float64 `json:"seconds"`
	// Seed and Replay are, for a failing test, the first seed that failed
	// and the command that replays it.
	Seed   *int64 `json:"seed,omitempty"`
	Replay string `json:"replay,omitempty"`
}

// A Part is the points earned in one part of the lab.
type Part struct {
	Part   string `json:"part"`
	Points int    `json:"points"`
	Max    int    `json:"max"`
}

// event is one line of `go test -json` (see go doc test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

var (
	partLine   = regexp.MustCompile(`: part (\S+), (\d+) points?$`)
	failedLine = regexp.MustCompile(`FAILED with seed (-?\d+); replay with:$`)
)

// Grade reads a `go test -json` stream and returns its grade sheet. Lines
// that are not JSON (the go command's own messages) are skipped; a stream
// with no test events at all is an error.
func Grade(r io.Reader) (*Sheet, error) {
	g := &grader{byName: map[string]*Result{}, pkgs: map[string]string{}, replayNext: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	events := 0
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("kit: line %d is not go test -json output: %v", n, err)
		}
		events++
		g.add(e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if events == 0 {
		return nil, errors.New("kit: no go test -json events in the input (run go test -json)")
	}
	return g.sheet(), nil
}

// grader accumulates a sheet from events.
type grader struct {
	order      []*Result
	byName     map[string]*Result // by package and top-level test
	pkgOrder   []string
	pkgs       map[string]string // package status
	replayNext map[string]bool   // the next output of this test is a replay command
}

func (g *grader) add(e event) {
	pkg := e.Package
	if pkg == "" {
		pkg = e.ImportPath
	}
	if _, ok := g.pkgs[pkg]; !ok && pkg != "" {
		g.pkgOrder = append(g.pkgOrder, pkg)
		g.pkgs[pkg] = ""
	}
	if e.Action == "build-fail" {
		g.pkgs[pkg] = "build failed"
		return
	}
	if e.Test == "" {
		switch e.Action {
		case "pass":
			g.pkgs[pkg] = "ok"
		case "fail":
			if g.pkgs[pkg] != "build failed" {
				g.pkgs[pkg] = "FAIL"
			}
		case "output":
			if strings.Contains(e.Output, "[build failed]") || strings.Contains(e.Output, "[setup failed]") {
				g.pkgs[pkg] = "build failed"
			}
		}
		return
	}
	top, _, sub := strings.Cut(e.Test, "/")
	key := pkg + "\x00" + top
	r := g.byName[key]
	if r == nil {
		r = &Result{Package: pkg, Test: top, Status: "unfinished"}
		g.byName[key] = r
		g.order = append(g.order, r)
	}
	switch e.Action {
	case "pass", "fail", "skip":
		if !sub {
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
		if m := partLine.FindStringSubmatch(out); m != nil && !sub {
			r.Part = m[1]
			r.Max, _ = strconv.Atoi(m[2])
		}
		if m := failedLine.FindStringSubmatch(out); m != nil && r.Seed == nil {
			seed, err := strconv.ParseInt(m[1], 10, 64)
			if err == nil {
				r.Seed = &seed
				g.replayNext[e.Test] = true
			}
		}
	}
}

// sheet totals what was read.
func (g *grader) sheet() *Sheet {
	s := &Sheet{Tests: []Result{}, Packages: []Package{}, Parts: []Part{}}
	for _, p := range g.pkgOrder {
		status := g.pkgs[p]
		if status == "" {
			status = "unfinished"
		}
		s.Packages = append(s.Packages, Package{p, status})
	}
	parts := map[string]int{} // index in s.Parts
	for _, r := range g.order {
		if r.Status == "pass" {
			r.Points = r.Max
		}
		if r.Status != "fail" {
			r.Seed, r.Replay = nil, ""
		}
		s.Tests = append(s.Tests, *r)
		s.Points += r.Points
		s.Max += r.Max
		if r.Part == "" {
			continue
		}
		i, ok := parts[r.Part]
		if !ok {
			i = len(s.Parts)
			parts[r.Part] = i
			s.Parts = append(s.Parts, Part{Part: r.Part})
		}
		s.Parts[i].Points += r.Points
		s.Parts[i].Max += r.Max
	}
	return s
}

// Failed reports whether any package or test did not pass.
func (s *Sheet) Failed() bool {
	for _, p := range s.Packages {
		if p.Status != "ok" {
			return true
		}
	}
	for _, r := range s.Tests {
		if r.Status != "pass" && r.Status != "skip" {
			return true
		}
	}
	return false
}

// WriteTable writes the sheet as a table: a line per test with its part,
// points and result, each failing test's replay command under it, then the
// points by part and in all.
func (s *Sheet) WriteTable(w io.Writer) error {
	var b strings.Builder
	for _, p := range s.Packages {
		fmt.Fprintf(&b, "package %s: %s\n", p.Package, p.Status)
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
		part, points := r.Part, fmt.Sprintf("%d/%d", r.Points, r.Max)
		if part == "" {
			part, points = "-", "-"
		}
		result := r.Status
		if r.Seed != nil {
			result += fmt.Sprintf(" (seed %d)", *r.Seed)
		}
		row(r.Test, part, points, result)
		if r.Replay != "" {
			fmt.Fprintf(&b, "    replay: %s\n", r.Replay)
		}
	}
	b.WriteString("\n")
	for _, p := range s.Parts {
		fmt.Fprintf(&b, "part %-4s %d/%d\n", p.Part, p.Points, p.Max)
	}
	fmt.Fprintf(&b, "total     %d/%d\n", s.Points, s.Max)
	_, err := io.WriteString(w, b.String())
	return err
}
