package labsim

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/sim"
)

var recordCmd = &command{
	name:  "record",
	args:  "SCENARIO [-seed N] [-plant BUG] [-out FILE]",
	short: "run one seed of a scenario and write its run file",
	arg:   "scenario",
	long: `
Record runs one seed of a sweep scenario, as 'labsim sweep SCENARIO -seed N'
does, and writes down the whole run in a run file (JSON, one event a
line): the seed, what it drew of the configuration, the faults as the
monkey applied them with the hosts they struck, every event (timers,
messages sent, delivered, duplicated, answered, lost, returned, with
their sizes; faults; the clients' operations begun and ended), what each
host showed of its state after the events that changed it, the clients'
operations with their results, the verdict (its kind, the operations it
names, the event at which it shows) and the trace hash.

'labsim replay FILE' runs the file's seed again and checks that it does
the same; 'labsim view FILE' draws it as a page to step through. Recording
changes nothing in the run: its trace hash is the one a sweep prints.

The file is SCENARIO-seedN.run.json unless -out names it (a directory:
that file in it). Record exits with status 1 if the run failed, once the
file is written.`,
	flags: func(fs *flag.FlagSet) action {
		seed := seedFlag(fs, 1, "run seed `N`")
		out := fs.String("out", "", "write the run file to `FILE` (default: SCENARIO-seedN.run.json; a directory: that file in it)")
		plant := fs.String("plant", "", "switch on the planted bug named `BUG` ('labsim sweep SCENARIO -plant list' lists them)")
		return func(e *env, name string) error {
			sc, err := findScenario(e, name)
			if err != nil {
				return err
			}
			bug := ""
			if *plant != "" {
				if sc, bug, err = plantBug(sc, *plant); err != nil {
					return err
				}
			}
			path, err := runFilePath(*out, runFileName(name, *seed))
			if err != nil {
				return err
			}
			f, o, err := recordSeed(sc, name, bug, *seed)
			if err != nil {
				return err
			}
			if err := runfile.Save(path, f); err != nil {
				return err
			}
			size := int64(0)
			if fi, err := os.Stat(path); err == nil {
				size = fi.Size()
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s seed %d, %s on %s, %s, %s, %.1f MB\n", path, sc.Name, *seed,
				count(len(f.Events), "event"), count(len(f.Hosts), "host"), count(len(f.Ops), "operation"), count(len(f.Faults), "fault"),
				float64(size)/1e6)
			fmt.Fprintf(e.stdout, "trace hash %s\n  replay: %s replay %s\n  view:   %s view %s\n", f.Summary.Hash, e.replayCmd(), path, e.replayCmd(), path)
			if !o.OK() {
				return fmt.Errorf("seed %d: FAIL (%s): %s", *seed, f.Verdict.Kind, o.Problem)
			}
			fmt.Fprintln(e.stdout, "verdict: ok")
			return nil
		}
	},
}

var replayCmd = &command{
	name:    "replay",
	args:    "FILE [-out FILE]",
	short:   "run a run file's seed again and check that it does the same",
	arg:     "file",
	argHint: "(a run file, as 'labsim record' or a failing sweep writes it)",
	long: `
Replay reads a run file, runs its scenario's seed again (with its planted
bug, if it had one), recording it, and compares the two. If the trace
hashes and the events agree, it says "same trace (hash H)" and exits 0.
If not, it says where the traces part: the first event that differs, as
recorded and as replayed, and its virtual time; and exits with status 1. A run
that no longer replays means the code changed since the file was written,
or something in the run is not a function of its seed.

Replay exits 2 if FILE cannot be read, is not a run file of this version
(the bad part named), or names a scenario or planted bug this labsim does
not have.

-out writes the replay's own run file, to compare with the first (diff
shows every event that differs, one a line).`,
	flags: func(fs *flag.FlagSet) action {
		out := fs.String("out", "", "write the replay's run file to `FILE`")
		return func(e *env, file string) error {
			if _, err := os.Stat(file); err != nil {
				if _, serr := findScenario(e, file); serr == nil {
					return usagef("%s is a scenario, not a run file: 'labsim record %s -seed N' writes one, 'labsim sweep %s -seed N' replays a seed", file, file, file)
				}
			}
			was, err := loadRunFile(file)
			if err != nil {
				return err
			}
			path := ""
			if *out != "" {
				if path, err = runFilePath(*out, filepath.Base(file)); err != nil {
					return err
				}
				if filepath.Clean(path) == filepath.Clean(file) {
					return usagef("-out %s: that is the run file replayed", *out)
				}
			}
			sc, err := findScenario(e, was.Scenario)
			if err != nil {
				return usagef("%s: %v", file, err)
			}
			if was.Plant != "" {
				if sc, _, err = plantBug(sc, was.Plant); err != nil {
					return usagef("%s: %v", file, err)
				}
			}
			var now *runfile.File
			if was.Shrunk != nil { // the seed's run with the shrink's edits (labsim shrink)
				now, err = recordShrunk(sc, was.Scenario, was.Plant, was.Seed, *was.Shrunk)
			} else {
				now, _, err = recordSeed(sc, was.Scenario, was.Plant, was.Seed)
			}
			if err != nil {
				return err
			}
			if path != "" {
				if err := runfile.Save(path, now); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "wrote %s\n", path)
			}
			at := runfile.Diverge(was.Events, now.Events)
			if now.Summary.Hash == was.Summary.Hash && at < 0 {
				fmt.Fprintf(e.stdout, "replayed %s seed %d: same trace (hash %s, %s, %v of virtual time)\n",
					sc.Name, was.Seed, now.Summary.Hash, count(len(now.Events), "recorded event"), time.Duration(now.Summary.Now))
				return nil
			}
			fmt.Fprintf(e.stdout, "replayed %s seed %d: the trace differs: hash %s, recorded %s\n", sc.Name, was.Seed, now.Summary.Hash, was.Summary.Hash)
			event := func(f *runfile.File) string {
				if at >= len(f.Events) {
					return fmt.Sprintf("nothing: it ended after %s", count(len(f.Events), "event"))
				}
				ev := f.Events[at]
				return fmt.Sprintf("%s, at %v", ev.Format(f.Hosts), time.Duration(ev.At))
			}
			if at < 0 {
				fmt.Fprintf(e.stdout, "the %s recorded agree; the runs differ in what the hash holds and the recording does not\n", count(len(now.Events), "event"))
			} else {
				fmt.Fprintf(e.stdout, "the traces part at event %d:\n  recorded: %s\n  replayed: %s\n", at, event(was), event(now))
			}
			return fmt.Errorf("%s does not replay: the trace differs", file)
		}
	},
}

// recordSeed runs seed of sc (scenario in the catalogue, with the planted
// bug plant, if any), recording it, and returns its run file and outcome.
func recordSeed(sc sweep.Scenario, scenario, plant string, seed int64) (f *runfile.File, o sweep.Outcome, err error) {
	rc := &testbed.Recording{}
	defer func() {
		if p := recover(); p != nil { // a node's panic: the file holds the run up to it
			o = sweep.Outcome{Seed: seed, Problem: fmt.Sprintf("panic: %v", p)}
			if f, err = recorded(rc, sc, scenario, plant, seed, o); err == nil {
				o.Summary = sim.Summary{Seed: seed, Now: time.Duration(f.Summary.Now), Events: f.Summary.Events}
				o.Summary.Hash, _ = strconv.ParseUint(f.Summary.Hash, 16, 64)
			}
		}
	}()
	o = sc.Run(seed, "", rc)
	f, err = recorded(rc, sc, scenario, plant, seed, o)
	return f, o, err
}

// recorded returns the run file rc holds after seed of sc ran to o.
func recorded(rc *testbed.Recording, sc sweep.Scenario, scenario, plant string, seed int64, o sweep.Outcome) (*runfile.File, error) {
	if rc.File == nil {
		if !o.OK() {
			return nil, fmt.Errorf("%s seed %d could not be recorded: %s", sc.Name, seed, o.Problem)
		}
		return nil, fmt.Errorf("scenario %s records no run file: its seeds are not testbed runs given the trace writer (testbed.Recording)", sc.Name)
	}
	f := rc.File
	f.Scenario, f.Plant, f.Seed = scenario, plant, seed
	return f, nil
}

// runFileName is the name of the run file of a seed of scenario: beside
// porcupine's page of its violation, which is scenario-seedN.html.
func runFileName(scenario string, seed int64) string {
	return fmt.Sprintf("%s-seed%d.run.json", scenario, seed)
}

// runFilePath returns where -out says a run file goes: out itself, the
// file called name in it if it is a directory, or name if out is empty.
// A missing directory is refused, naming it.
func runFilePath(out, name string) (string, error) {
	if out == "" {
		return name, nil
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return filepath.Join(out, name), nil
	}
	dir := filepath.Dir(out)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", usagef("-out %s: the directory %s does not exist", out, dir)
	case err != nil || !fi.IsDir():
		return "", usagef("-out %s: %s is not a directory", out, dir)
	}
	return out, nil
}
