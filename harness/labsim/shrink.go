package labsim

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/shrink"
	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/harness/testbed"
)

var shrinkCmd = &command{
	name:    "shrink",
	args:    "SCENARIO [-seed N] [-plant BUG] [-out FILE] | FILE.run.json [-out FILE]",
	short:   "make a failing seed's run small, and write its run file",
	arg:     "scenario",
	argHint: "(or a run file, as 'labsim record' or a failing sweep writes it)",
	long: `
Shrink takes a failing seed of a scenario (or the scenario, seed and
planted bug a run file names) and makes its run as small as it can while
it still fails with the same kind of violation: delta debugging over what
the run is made of. It tries a shorter run, fewer faults (each strike
with the step that heals it: a kill with its restart, an isolation with
its rejoin), fewer clients of each kind, fewer servers where the run
deploys one group, and shorter faults, pass after pass until none helps;
every candidate is a whole run, replayed from the seed, and kept only if
it fails the same way. A nemesis that reacts to the run is first replaced
by what it did, as a schedule; if that no longer fails, it is left whole.

It prints each pass and the smallest run so far, then the smallest run
found beside the original ("0 faults, 35 operations, 1.406s, 1 server, 1
client" against "25 faults, 1 869 operations, 30s, 5 servers, 5
clients"), and writes the shrunk run's run file: the seed and the edits
that make the small run from it ('shrunk'), with every event, so that
'labsim replay' runs it again exactly and 'labsim view' draws it. The
same failing seed always shrinks to the same run.

A seed that passes is refused: there is nothing to shrink. The file is
SCENARIO-seedN-shrunk.run.json unless -out names it (a directory: that
file in it).`,
	flags: func(fs *flag.FlagSet) action {
		seed := seedFlag(fs, 1, "shrink seed `N`")
		out := fs.String("out", "", "write the shrunk run's file to `FILE` (default: SCENARIO-seedN-shrunk.run.json)")
		plant := fs.String("plant", "", "switch on the planted bug named `BUG` ('labsim sweep SCENARIO -plant list' lists them)")
		runs := fs.Int("max-runs", shrink.DefaultMaxRuns, "try at most `N` candidate runs")
		return func(e *env, arg string) error {
			name, bug, from := arg, *plant, *seed
			if strings.HasSuffix(arg, ".json") {
				f, err := loadRunFile(arg)
				if err != nil {
					return err
				}
				name, bug, from = f.Scenario, f.Plant, f.Seed
			}
			sc, err := findScenario(e, name)
			if err != nil {
				return err
			}
			if bug != "" {
				if sc, bug, err = plantBug(sc, bug); err != nil {
					return err
				}
			}
			if sc.Build == nil {
				return usagef("scenario %s cannot be shrunk: its seeds are not testbed runs", name)
			}
			path, err := runFilePath(*out, fmt.Sprintf("%s-seed%d-shrunk.run.json", name, from))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "shrinking %s seed %d%s\n", name, from, map[bool]string{true: " (" + bug + ")", false: ""}[bug != ""])
			start := time.Now()
			res, err := shrink.Shrink(func() (testbed.Run, error) { return sc.Build(from, "", nil) }, shrink.Options{MaxRuns: *runs,
				Progress: func(pass string, now shrink.Size, runs int) {
					fmt.Fprintf(e.stdout, "  %6.1fs %4s  %-26s %v\n", time.Since(start).Seconds(), count(runs, "run"), pass, now)
				}})
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "fails with %s:\n  original: %v\n  shrunk:   %v\n  (%s, %s kept, %.1fs)\n",
				res.Kind, res.Original, res.Shrunk, count(res.Runs, "candidate run"), count(res.Accepted, "smaller run"), time.Since(start).Seconds())
			if res.Reactive {
				fmt.Fprintln(e.stdout, "  the nemesis reacts to the run and, replayed as a schedule, did not fail the same way: it was left whole")
			}
			f, err := recordShrunk(sc, name, bug, from, res.Edits)
			if err != nil {
				return err
			}
			if err := runfile.Save(path, f); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s, trace hash %s\n  problem: %s\n  replay: %s replay %s\n  view:   %s view %s\n", path,
				count(len(f.Events), "event"), f.Summary.Hash, firstLine(f.Verdict.Problem), e.replayCmd(), path, e.replayCmd(), path)
			return nil
		}
	},
}

// recordShrunk runs seed of sc (scenario in the catalogue, with the
// planted bug plant, if any) with the shrink's edits made, recording it,
// and returns its run file (of the run up to a node's panic, if one
// panicked).
func recordShrunk(sc sweep.Scenario, scenario, plant string, seed int64, edits runfile.Shrunk) (f *runfile.File, err error) {
	if sc.Build == nil {
		return nil, fmt.Errorf("scenario %s cannot replay a shrunk run: its seeds are not testbed runs", scenario)
	}
	r, err := sc.Build(seed, "", nil)
	if err == nil {
		r, err = shrink.Apply(r, edits)
	}
	if err != nil {
		return nil, fmt.Errorf("%s seed %d, shrunk: %w", scenario, seed, err)
	}
	rc := &testbed.Recording{}
	r.Trace = rc
	defer func() {
		if p := recover(); p != nil && rc.File == nil {
			err = fmt.Errorf("%s seed %d, shrunk, panics (%v) and left no run file", scenario, seed, p)
		}
		if rc.File != nil {
			f, err = rc.File, nil
			f.Scenario, f.Plant, f.Seed, f.Shrunk = scenario, plant, seed, &edits
		}
	}()
	if _, err := r.Execute(); err != nil {
		return nil, fmt.Errorf("%s seed %d, shrunk: %w", scenario, seed, err)
	}
	return nil, nil // the deferred function fills the file in
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
