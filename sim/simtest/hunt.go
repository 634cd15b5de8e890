package simtest

import (
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/replab/replab/sim/plant"
)

// T is what a world-driven test body needs from its test: a *testing.T, or
// the Stopper of HuntBugs, which stops the body at its first failure.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	FailNow()
	Logf(format string, args ...any)
}

// A Case is a test body that runs with a configuration of type C, in
// which a bug may be planted.
type Case[C any] struct {
	Name string
	Run  func(t T, seed int64, c C)
}

// HuntBugs plants each bug in turn in a configuration from base and runs
// the cases on seed 1, then on seed 2, and so on to seeds, until one
// fails (a bug most cases catch costs one run, whichever catches it); it
// fails t for every bug that no run catches, and logs a table of which
// test and seed caught each bug after how many runs. With no bug planted, the first
// seed of every case must pass, or the hunt proves nothing.
func HuntBugs[C any](t *testing.T, base func() C, bugs []plant.Bug[C], cases []Case[C], seeds int) {
	t.Helper()
	for _, c := range cases {
		if msg, failed := huntOnce(c, 1, base()); failed {
			t.Fatalf("%s fails with no bug planted: %s", c.Name, msg)
		}
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "bug\tcaught by\tseed\truns\tfailure\n")
	for _, bug := range bugs {
		cfg := base()
		bug.Plant(&cfg)
		by, seed, runs, msg := "", int64(0), 0, ""
	search:
		for s := int64(1); s <= int64(seeds); s++ {
			for _, c := range cases {
				runs++
				if m, failed := huntOnce(c, s, cfg); failed {
					by, seed, msg = c.Name, s, m
					break search
				}
			}
		}
		if by == "" {
			t.Errorf("planted bug %q was not caught in %d runs", bug.Name, runs)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t\n", bug.Name, "NOT CAUGHT", "-", runs)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", bug.Name, by, seed, runs, firstLine(msg, 70))
	}
	tw.Flush()
	t.Logf("planted bugs:\n%s", table.String())
}

// huntOnce runs a case and reports whether it failed, and how.
func huntOnce[C any](c Case[C], seed int64, cfg C) (msg string, failed bool) {
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(Stop); ok {
				msg = string(c)
			} else {
				msg = fmt.Sprintf("panic: %v", r)
			}
			failed = true
		}
	}()
	c.Run(Stopper{}, seed, cfg)
	return "", false
}

// A Stop is what a Stopper panics with: the message of a body's first
// failure.
type Stop string

// Stopper is a T for running a test body outside a test (a bug hunt, one
// seed of a sweep): the first failure panics with a Stop, which stops the
// body where it stands; the caller recovers it as the outcome.
type Stopper struct{}

// Helper does nothing: a stopped body reports no lines.
func (Stopper) Helper() {}

// Logf discards the log.
func (Stopper) Logf(string, ...any) {}

// FailNow stops the body.
func (Stopper) FailNow() { panic(Stop("FailNow")) }

// Errorf stops the body with the message.
func (Stopper) Errorf(f string, a ...any) { panic(Stop(fmt.Sprintf(f, a...))) }

// Fatalf stops the body with the message.
func (Stopper) Fatalf(f string, a ...any) { panic(Stop(fmt.Sprintf(f, a...))) }

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
