package raft

import (
	"fmt"
	"strings"
	"testing"
)

// plantedBugs are the known Raft mistakes the suite must catch.
var plantedBugs = []struct {
	name  string
	plant func(*bugs)
}{
	{"vote granted without the log-up-to-date check", func(b *bugs) { b.voteWithoutLogCheck = true }},
	{"commit by counting replicas of an old-term entry (Figure 8)", func(b *bugs) { b.commitOldTerm = true }},
	{"votedFor not persisted", func(b *bugs) { b.forgetVote = true }},
	{"conflicting suffix not truncated", func(b *bugs) { b.keepConflicts = true }},
	{"log truncated by a stale AppendEntries", func(b *bugs) { b.truncateStale = true }},
	{"leader does not step down on a higher term", func(b *bugs) { b.noStepDown = true }},
	{"entries applied before they commit", func(b *bugs) { b.applyUncommitted = true }},
}

// huntScenarios are the chaos scenarios a planted bug is hunted with, in
// the order they are tried.
var huntScenarios = []struct {
	name string
	sc   scenario
}{
	{"TestFigure8Scripted", figure8Scripted},
	{"TestVoteSurvivesCrash", voteSurvivesCrash},
	{"TestFigure8", figure8},
	{"TestFigure8Unreliable", figure8Unreliable},
	{"TestUnreliableChurn", unreliableChurn},
	{"TestReliableChurn", reliableChurn},
	{"TestBackup", backup},
	{"TestPersist2", persist2},
	{"TestRejoin", rejoin},
	{"TestReElection", reElection},
	{"TestSnapshotInstallUnCrash", snapshotInstallUnCrash},
	{"TestPartitionMajority/n=5", partitionMajority(5)},
}

// huntSeeds is how many seeds each scenario gets per bug.
const huntSeeds = 5

// TestPlantedBugsCaught plants each bug in turn and runs the chaos
// scenarios over a few seeds until one of them fails; every bug must be
// caught. It prints which test and seed caught each one.
func TestPlantedBugsCaught(t *testing.T) {
	var table strings.Builder
	fmt.Fprintf(&table, "%-60s %-28s %5s %6s  %s\n", "bug", "caught by", "seed", "tries", "failure")
	for _, bug := range plantedBugs {
		rc := LabConfig()
		bug.plant(&rc.bugs)
		caughtBy, seed, tries, msg := "", int64(0), 0, ""
	search:
		for _, h := range huntScenarios {
			for s := int64(1); s <= huntSeeds; s++ {
				tries++
				if m, ok := huntOnce(h.sc, s, rc); ok {
					caughtBy, seed, msg = h.name, s, m
					break search
				}
			}
		}
		if caughtBy == "" {
			t.Errorf("planted bug %q was not caught in %d runs", bug.name, tries)
			fmt.Fprintf(&table, "%-60s %-28s %5s %6d\n", bug.name, "NOT CAUGHT", "-", tries)
			continue
		}
		fmt.Fprintf(&table, "%-60s %-28s %5d %6d  %s\n", bug.name, caughtBy, seed, tries, firstLine(msg, 70))
	}
	t.Logf("planted bugs:\n%s", table.String())
}

// TestCleanNodePassesTheHunt checks that the hunt itself is fair: with no
// bug planted, the first seed of every hunt scenario passes.
func TestCleanNodePassesTheHunt(t *testing.T) {
	for _, h := range huntScenarios {
		if msg, failed := huntOnce(h.sc, 1, LabConfig()); failed {
			t.Errorf("%s failed with no bug planted: %s", h.name, msg)
		}
	}
}

// huntOnce runs one scenario and reports whether it failed, and how.
func huntOnce(sc scenario, seed int64, rc Config) (msg string, failed bool) {
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
	sc(hunter{}, seed, rc)
	return "", false
}

// caught is the panic a hunter raises on a test's first failure.
type caught string

// hunter is the tester of a bug hunt: the first failure panics, which
// stops the scenario where it stands.
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
