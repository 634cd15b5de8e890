package simtest

import (
	"fmt"
	"strings"
	"testing"
)

// T is what a world-driven test body needs from its test: a *testing.T, or
// the hunter of HuntBugs, which stops the body at its first failure.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	FailNow()
	Logf(format string, args ...any)
}

// A Scenario is a test body that can run with a planted bug: bug is an
// index into the bug list given to HuntBugs, or -1 for none.
type Scenario struct {
	Name string
	Run  func(t T, seed int64, bug int)
}

// HuntBugs plants each bug in turn and runs the scenarios, each over seeds
// 1..seeds, until one fails; it fails t for every bug that no run catches,
// and logs a table of which test and seed caught each bug after how many
// runs. With no bug planted, the first seed of every scenario must pass,
// or the hunt proves nothing.
func HuntBugs(t *testing.T, bugs []string, scenarios []Scenario, seeds int) {
	t.Helper()
	for _, sc := range scenarios {
		if msg, failed := huntOnce(sc, 1, -1); failed {
			t.Fatalf("%s fails with no bug planted: %s", sc.Name, msg)
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-56s %-30s %4s %5s  %s\n", "bug", "caught by", "seed", "runs", "failure")
	for b, bug := range bugs {
		by, seed, runs, msg := "", int64(0), 0, ""
	search:
		for _, sc := range scenarios {
			for s := int64(1); s <= int64(seeds); s++ {
				runs++
				if m, failed := huntOnce(sc, s, b); failed {
					by, seed, msg = sc.Name, s, m
					break search
				}
			}
		}
		if by == "" {
			t.Errorf("planted bug %q was not caught in %d runs", bug, runs)
			fmt.Fprintf(&table, "%-56s %-30s %4s %5d\n", bug, "NOT CAUGHT", "-", runs)
			continue
		}
		fmt.Fprintf(&table, "%-56s %-30s %4d %5d  %s\n", bug, by, seed, runs, firstLine(msg, 80))
	}
	t.Logf("planted bugs:\n%s", table.String())
}

// huntOnce runs a scenario and reports whether it failed, and how.
func huntOnce(sc Scenario, seed int64, bug int) (msg string, failed bool) {
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(caught); ok {
				msg = string(c)
			} else {
				msg = fmt.Sprintf("panic: %v", r)
			}
			failed = true
		}
	}()
	sc.Run(hunter{}, seed, bug)
	return "", false
}

// caught is the panic a hunter raises at a test's first failure.
type caught string

// hunter is the T of a bug hunt: the first failure panics, which stops
// the scenario where it stands.
type hunter struct{}

func (hunter) Helper()                   {}
func (hunter) Logf(string, ...any)       {}
func (hunter) FailNow()                  { panic(caught("FailNow")) }
func (hunter) Errorf(f string, a ...any) { panic(caught(fmt.Sprintf(f, a...))) }
func (hunter) Fatalf(f string, a ...any) { panic(caught(fmt.Sprintf(f, a...))) }

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
