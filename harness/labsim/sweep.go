package labsim

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/sim/simtest"
)

var sweepCmd = &command{
	name:  "sweep",
	args:  "SCENARIO [-seeds N] [-first S] [-shard i/n] [-parallel P] [-out DIR]\nSCENARIO -seed N [-trace FILE] [-out DIR]\nSCENARIO -plant BUG [either's flags] | -plant list",
	short: "run a chaos scenario over many seeds, or replay one seed",
	arg:   "scenario",
	long: `
Sweep runs a chaos scenario (one of the services under random partitions,
kills and restarts, its history checked at the end: by porcupine for
linearizability, by the transaction checker, by the bank's total, as
'labsim help SCENARIO' says) from each of the seeds S, S+1, ..., S+N-1, P
at a time, with progress on stderr. It prints every failing seed with the
command that replays it (and the path of porcupine's visualization of a
violation), and exits with status 1 if any seed failed.
-shard i/n runs only every n-th of those seeds from the i-th, so that n
machines of a CI matrix can share a sweep. A sweep runs Go's garbage
collector at GOGC=400 (its worlds are small and it runs almost twice as
fast) unless GOGC is set.

With -seed N, sweep replays that one seed and prints its fault log and
verdict (exit status 1 if it fails); -trace writes its event trace.

-plant BUG runs the scenario with one of the services' planted bugs
switched on (docs/planted-bugs.md: a sweep finds each within 20 seeds),
to watch a sweep catch it; -plant list lists the bugs the scenario can
plant.`,
	flags: func(fs *flag.FlagSet) action {
		seeds := intFlag(fs, "seeds", 100, 1, maxSeeds, fmt.Sprintf("run `N` seeds, 1 to %d", maxSeeds))
		first := intFlag(fs, "first", 1, math.MinInt64, math.MaxInt64, "start from seed `S`")
		sh := &shard{0, 1}
		fs.Var(sh, "shard", "run only shard `i/n` of the seeds: every n-th from the i-th")
		par := parallelFlag(fs, "seeds")
		one := seedFlag(fs, 0, "replay seed `N` alone, verbosely")
		trace := fs.String("trace", "", "with -seed: write the event trace to `FILE`")
		dir := fs.String("out", "sweep-out", "write porcupine's visualizations of failures into `DIR`")
		plant := fs.String("plant", "", "switch on the planted bug named `BUG` (list: the scenario's bugs)")
		return func(e *env, name string) error {
			sc, err := findScenario(e, name)
			if err != nil {
				return err
			}
			if *plant == "list" {
				return listBugs(e, sc)
			}
			if *plant != "" {
				if sc, err = plantBug(sc, *plant); err != nil {
					return err
				}
			}
			if isSet(fs, "seed") {
				for _, f := range []string{"seeds", "first", "shard", "parallel"} {
					if isSet(fs, f) {
						return usagef("-%s does not go with -seed, which replays one seed", f)
					}
				}
				if err := checkOut(*dir); err != nil {
					return err
				}
				return replay(e, sc, *one, *trace, *dir)
			}
			if *trace != "" {
				return usagef("-trace goes with -seed: trace one run at a time")
			}
			if *first > math.MaxInt64-(*seeds-1) {
				return usagef("-first %d with -seeds %d: the last seed would pass the largest, %d", *first, *seeds, int64(math.MaxInt64))
			}
			if int64(sh.i) >= *seeds {
				return usagef("-shard %v: with -seeds %d, shard %d has no seeds", sh, *seeds, sh.i)
			}
			if err := checkOut(*dir); err != nil {
				return err
			}
			list, err := sweep.Seeds(*first, *seeds, sh.i, sh.n)
			if err != nil {
				return err
			}
			where := fmt.Sprintf("%d to %d", *first, *first+*seeds-1)
			if sh.n > 1 {
				where = fmt.Sprintf("shard %v of %s", sh, where)
			}
			return runSweep(e, sc, list, int(*par), *dir, where)
		}
	},
}

// listBugs prints the planted bugs sc can run with.
func listBugs(e *env, sc sweep.Scenario) error {
	fmt.Fprintf(e.stdout, "planted bugs %s can run with (-plant NAME):\n", sc.Name)
	for _, b := range sweep.Bugs() {
		if _, err := sweep.Planted(sc, b); err == nil {
			fmt.Fprintf(e.stdout, "  %q\n", b.Name)
		}
	}
	return nil
}

// plantBug returns sc with the bug called name (with or without its
// package, "raft: votedFor not persisted") planted, or a usage error.
func plantBug(sc sweep.Scenario, name string) (sweep.Scenario, error) {
	b, err := find(sweep.Bugs(), func(b sweep.Bug) string {
		if strings.Contains(name, ": ") {
			return b.String()
		}
		return b.Name
	}, "planted bug", name)
	if err != nil {
		return sweep.Scenario{}, usagef("%v; 'labsim sweep %s -plant list' lists the bugs it can plant", strings.TrimSuffix(err.Error(), " ('labsim list' shows them)"), sc.Name)
	}
	p, err := sweep.Planted(sc, b)
	if err != nil {
		return sweep.Scenario{}, usagef("%v ('labsim sweep %s -plant list' lists the bugs it can plant)", err, sc.Name)
	}
	p.Name = sc.Name + " -plant " + strconv.Quote(b.Name)
	return p, nil
}

// runSweep runs sc for every seed in list, par at a time, and prints the
// failing ones and a summary of the seeds, which where describes.
func runSweep(e *env, sc sweep.Scenario, list []int64, par int, dir, where string) error {
	defer simtest.SetGC()()
	p := newProgress(e, sc.Name, "seeds", len(list), true)
	start := time.Now()
	outcomes := sweep.Run(sc, list, par, dir, p.set)
	p.finish()
	took := time.Since(start)
	failed := 0
	for _, o := range outcomes {
		if o.OK() {
			continue
		}
		failed++
		problem := o.Problem
		if o.HTML != "" {
			problem = strings.TrimSuffix(problem, "; visualization: "+o.HTML) // on a line of its own
		}
		fmt.Fprintf(e.stdout, "seed %d: FAIL: %s\n  replay: %s sweep %s -seed %d\n", o.Seed, problem, e.replayCmd(), sc.Name, o.Seed)
		if o.HTML != "" {
			fmt.Fprintf(e.stdout, "  porcupine: %s\n", o.HTML)
		}
	}
	fmt.Fprintf(e.stdout, "%s: %s (%s), %d failing, %.1fs, %.1f seeds/s\n",
		sc.Name, count(len(list), "seed"), where, failed, took.Seconds(), float64(len(list))/took.Seconds())
	if failed > 0 {
		return fmt.Errorf("%d of %s failed", failed, count(len(list), "seed"))
	}
	return nil
}

// replay runs one seed and prints everything about it.
func replay(e *env, sc sweep.Scenario, seed int64, trace, dir string) error {
	w, closeTrace, err := traceFile(trace)
	if err != nil {
		return err
	}
	o := sc.Run(seed, dir, w)
	if err := closeTrace(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s seed %d: %d operations, %v\nfault log:\n%s", sc.Name, seed, o.Ops, o.Summary, o.FaultLog)
	if trace != "" {
		fmt.Fprintf(e.stdout, "event trace: %s\n", trace)
	}
	if !o.OK() {
		if o.HTML != "" {
			fmt.Fprintf(e.stdout, "porcupine: %s\n", o.HTML)
		}
		return fmt.Errorf("seed %d: FAIL: %s", seed, o.Problem)
	}
	fmt.Fprintln(e.stdout, "verdict: ok")
	return nil
}

// count writes n things, in the plural unless n is 1.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
