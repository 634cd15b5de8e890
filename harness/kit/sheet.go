package kit

import (
	"fmt"
	"io"
	"strings"
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

// blankSheet returns the sheet of the package pkg of lab, whose catalogue
// is cat, before anything ran: no test has run yet.
func blankSheet(lab, pkg string, cat []Graded) *Sheet {
	s := &Sheet{Lab: lab, Package: pkg, Status: unfinished, Parts: []Part{}}
	for _, t := range cat {
		s.Tests = append(s.Tests, Result{Test: t.Name, Part: t.Part, Max: t.Points, Status: notRun})
	}
	return s
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
	if len(s.Refused) > 0 {
		fmt.Fprintf(&b, "\ntotal     %d/%d\n", s.Points, s.Max)
		_, err := io.WriteString(w, b.String())
		return err
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
	if n := len(s.NotRun()); n > 0 && s.Status != doesNotBuild {
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
