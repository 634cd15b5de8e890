package labsim

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

var sweepCmd = &command{
	name:  "sweep",
	args:  "SCENARIO [-seeds N] [-first S] [-shard i/n|auto] [-json FILE] [-parallel P]\nSCENARIO -seed N [-trace FILE] [-out DIR]\nSCENARIO -plant BUG [either's flags] | -plant list",
	short: "run a chaos scenario over many seeds, or replay one seed",
	arg:   "scenario",
	long: `
Sweep runs a chaos scenario (one of the services under random partitions,
kills and restarts, its history checked at the end: by porcupine for
linearizability, by the transaction checker, by the bank's total, as
'labsim help SCENARIO' says) from each of the seeds S, S+1, ..., S+N-1, P
at a time, with progress on stderr. It prints every failing seed with the
command that replays it (and the path of porcupine's visualization of a
violation), and exits with status 1 if any seed failed. A sweep runs Go's
garbage collector at GOGC=400 (its worlds are small and it runs almost
twice as fast) unless GOGC is set.

-shard i/n runs only every n-th of those seeds from the i-th, so that n
machines can share a sweep (a shard with no seeds, when n is more than N,
runs none and passes). -shard auto takes i and n from the engine that runs
the shards: a Kubernetes Indexed Job (JOB_COMPLETION_INDEX; the Job's
completions are not in a pod's environment, so give them: auto/N), a
GitHub Actions matrix (STRATEGY_JOB_INDEX and STRATEGY_JOB_TOTAL, which
the workflow sets from ${{ strategy.job-index }} and job-total) or a
Slurm array (SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT); it refuses
when none of them, or more than one, is set. -json writes one JSON line
per seed and a summary line (format 1, in the README): 'labsim merge'
puts the shards' files together into one verdict. If FILE is a directory
or ends in a slash, the file in it is SCENARIO.jsonl, or
SCENARIO.I-of-N.jsonl for a shard.

A scenario whose seeds draw their configuration (swarm-kv, say) ends with
how each drawn parameter spread over the seeds (min, median and max, or
how often each value came).

With -seed N, sweep replays that one seed and prints what it drew, its
fault log and verdict (exit status 1 if it fails); -trace writes its event trace.

-plant BUG runs the scenario with one of the services' planted bugs
switched on (docs/planted-bugs.md: a sweep finds each within 20 seeds),
to watch a sweep catch it; -plant list lists the bugs the scenario can
plant.`,
	flags: func(fs *flag.FlagSet) action {
		seeds := intFlag(fs, "seeds", 100, 1, maxSeeds, fmt.Sprintf("run `N` seeds, 1 to %d", maxSeeds))
		first := intFlag(fs, "first", 1, math.MinInt64, math.MaxInt64, "start from seed `S`")
		sh := &shard{i: 0, n: 1}
		fs.Var(sh, "shard", "run only shard `i/n` of the seeds: every n-th from the i-th, or auto")
		par := parallelFlag(fs, "seeds")
		one := seedFlag(fs, 0, "replay seed `N` alone, verbosely")
		trace := fs.String("trace", "", "with -seed: write the event trace to `FILE`")
		dir := fs.String("out", "sweep-out", "write porcupine's visualizations of failures into `DIR`")
		jsonOut := fs.String("json", "", "write each seed's result and a summary as JSON lines to `FILE` (a directory: a file in it)")
		plant := fs.String("plant", "", "switch on the planted bug named `BUG` (list: the scenario's bugs)")
		return func(e *env, name string) error {
			sc, err := findScenario(e, name)
			if err != nil {
				return err
			}
			if *plant == "list" {
				return listBugs(e, sc)
			}
			job := sweepJob{scenario: sc.Name, first: *first, seeds: *seeds, shard: sh, parallel: int(*par), dir: *dir}
			if *plant != "" {
				if sc, job.plant, err = plantBug(sc, *plant); err != nil {
					return err
				}
			}
			if isSet(fs, "seed") {
				for _, f := range []string{"seeds", "first", "shard", "parallel", "json"} {
					if isSet(fs, f) {
						return usagef("-%s does not go with -seed, which replays one seed", f)
					}
				}
				out := *dir
				if err := checkOut(out); err != nil {
					if isSet(fs, "out") {
						return err
					}
					out = "" // the default cannot be written here (a read-only checkout): the replay draws nothing
				}
				return replay(e, sc, job, *one, *trace, out)
			}
			if *trace != "" {
				return usagef("-trace goes with -seed: trace one run at a time")
			}
			if *first > math.MaxInt64-(*seeds-1) {
				return usagef("-first %d with -seeds %d: the last seed would pass the largest, %d", *first, *seeds, int64(math.MaxInt64))
			}
			if err := sh.resolve(e); err != nil {
				return err
			}
			if err := checkOut(*dir); err != nil {
				return err
			}
			if *jsonOut != "" {
				if job.results, err = createResults("-json", *jsonOut, resultsPath(*jsonOut, job.scenario, sh)); err != nil {
					return err
				}
			}
			return runSweep(e, sc, job)
		}
	},
}

// A sweepJob is what a sweep runs: which seeds, how, and where its
// results go.
type sweepJob struct {
	scenario, plant string // the scenario's own name, and the planted bug's
	first, seeds    int64  // the whole sweep: seeds first to first+seeds-1
	shard           *shard // the part of it this run runs
	parallel        int
	dir             string         // for porcupine's visualizations
	results         *resultsWriter // nil without -json
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
// package, "raft: votedFor not persisted") planted, and the bug's name, or
// a usage error.
func plantBug(sc sweep.Scenario, name string) (sweep.Scenario, string, error) {
	bare := slices.ContainsFunc(sweep.Bugs(), func(b sweep.Bug) bool { return b.Name == name }) // a bug's own name may hold ": "
	b, err := find(sweep.Bugs(), func(b sweep.Bug) string {
		if strings.Contains(name, ": ") && !bare {
			return b.String()
		}
		return b.Name
	}, "planted bug", name)
	if err != nil {
		return sweep.Scenario{}, "", usagef("%v; 'labsim sweep %s -plant list' lists the bugs it can plant", strings.TrimSuffix(err.Error(), " ('labsim list' shows them)"), sc.Name)
	}
	p, err := sweep.Planted(sc, b)
	if err != nil {
		return sweep.Scenario{}, "", usagef("%v ('labsim sweep %s -plant list' lists the bugs it can plant)", err, sc.Name)
	}
	p.Name = sc.Name + " -plant " + strconv.Quote(b.Name)
	return p, b.Name, nil
}

// runSweep runs sc for the seeds of job, prints the failing ones and a
// summary, and writes the results file if job has one.
func runSweep(e *env, sc sweep.Scenario, job sweepJob) error {
	defer simtest.SetGC()()
	sh := job.shard
	list, err := sweep.Seeds(job.first, job.seeds, sh.i, sh.n)
	if err != nil {
		return err
	}
	start, cpu := time.Now(), processCPU()
	var failing []sweep.Outcome
	var drawn []sweep.SeedRecord // what each seed drew, for the spread
	if len(list) > 0 {
		p := newProgress(e, sc.Name, "seeds", len(list), true)
		done := 0
		sweep.Each(sc, list, job.parallel, job.dir, func(k int, o sweep.Outcome) {
			done++
			if !o.OK() {
				failing = append(failing, o)
			}
			p.set(done, len(failing))
			if len(o.Drawn) > 0 {
				drawn = append(drawn, sweep.SeedRecord{Drawn: sweep.DrawnMap(o.Drawn)})
			}
			if job.results != nil {
				job.results.seed(k, seedRecord(o, job.scenario, job.plant, replayLine(e, sc, o.Seed)))
			}
		})
		p.finish()
	}
	took, cpu := time.Since(start), processCPU()-cpu
	slices.SortFunc(failing, func(a, b sweep.Outcome) int { return cmp.Compare(a.Seed, b.Seed) })
	for i, o := range failing {
		fmt.Fprintf(e.stdout, "seed %d: FAIL: %s\n  replay: %s\n", o.Seed, problemAlone(o), replayLine(e, sc, o.Seed))
		if o.HTML != "" {
			fmt.Fprintf(e.stdout, "  porcupine: %s\n", o.HTML)
		}
		if i < maxRunFiles {
			writeRunFile(e, sc, job.scenario, job.plant, o, job.dir)
		} else if i == maxRunFiles {
			fmt.Fprintf(e.stdout, "  (run files are written for the first %d failing seeds only: 'labsim record %s -seed N' writes any)\n", maxRunFiles, job.scenario)
		}
	}
	where := fmt.Sprintf("%d to %d", job.first, job.first+job.seeds-1)
	switch {
	case sh.auto:
		where = fmt.Sprintf("shard %d/%d of %s, from -shard auto on %s", sh.i, sh.n, where, sh.from)
	case sh.n > 1:
		where = fmt.Sprintf("shard %d/%d of %s", sh.i, sh.n, where)
	}
	rate := ""
	if len(list) > 0 {
		rate = fmt.Sprintf(", %.1f seeds/s", float64(len(list))/took.Seconds())
	}
	fmt.Fprintf(e.stdout, "%s: %s (%s), %d failing, %.1fs%s\n", sc.Name, count(len(list), "seed"), where, len(failing), took.Seconds(), rate)
	printSpread(e, drawn)
	if job.results != nil {
		sum := sweep.SummaryRecord{Format: sweep.ResultsFormat, Kind: sweep.KindSummary, Scenario: job.scenario, Plant: job.plant,
			First: job.first, Seeds: job.seeds, Shard: sh.i, Shards: sh.n, ShardFrom: sh.from,
			Ran: len(list), Failed: len(failing), Failing: []int64{}, WallSeconds: took.Seconds(), Parallel: job.parallel, CPUSeconds: cpu.Seconds(),
			Build: buildName(), Go: runtime.Version()}
		for _, o := range failing {
			sum.Failing = append(sum.Failing, o.Seed)
		}
		if err := job.results.finish(sum); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "results: %s\n", job.results.path)
	}
	if len(failing) > 0 {
		return fmt.Errorf("%d of %s failed", len(failing), count(len(list), "seed"))
	}
	return nil
}

// replayLine is the command that replays seed of sc.
func replayLine(e *env, sc sweep.Scenario, seed int64) string {
	return fmt.Sprintf("%s sweep %s -seed %d", e.replayCmd(), sc.Name, seed)
}

// replay runs one seed and prints everything about it, drawing a
// violation into dir ("": nowhere).
func replay(e *env, sc sweep.Scenario, job sweepJob, seed int64, trace, dir string) error {
	w, closeTrace, err := traceFile(trace)
	if err != nil {
		return err
	}
	o := sweep.RunSeed(sc, seed, dir, w)
	if err := closeTrace(); err != nil {
		return err
	}
	if o.Summary == (sim.Summary{}) && strings.HasPrefix(o.Problem, "panic: ") { // RunSeed's: nothing else to say
		return fmt.Errorf("seed %d: FAIL: %s", seed, o.Problem)
	}
	fmt.Fprintf(e.stdout, "%s seed %d: %d operations, %v\n", sc.Name, seed, o.Ops, o.Summary)
	if len(o.Drawn) > 0 {
		fmt.Fprintln(e.stdout, "configuration drawn:")
		for _, p := range o.Drawn {
			fmt.Fprintf(e.stdout, "  %s: %s\n", p.Name, p.Value)
		}
	}
	fmt.Fprintf(e.stdout, "fault log:\n%s", o.FaultLog)
	if trace != "" {
		fmt.Fprintf(e.stdout, "event trace: %s\n", trace)
	}
	if !o.OK() {
		switch {
		case o.HTML != "":
			fmt.Fprintf(e.stdout, "porcupine: %s\n", o.HTML)
		case dir == "":
			fmt.Fprintf(e.stdout, "porcupine's visualization is not written: sweep-out cannot be written here (-out DIR names another place)\n")
		}
		if dir != "" {
			writeRunFile(e, sc, job.scenario, job.plant, o, dir)
		}
		return fmt.Errorf("seed %d: FAIL: %s", seed, o.Problem)
	}
	fmt.Fprintln(e.stdout, "verdict: ok")
	return nil
}

// maxRunFiles is how many failing seeds' run files a sweep writes: each
// is a few megabytes, and a sweep may find thousands.
const maxRunFiles = 5

// writeRunFile runs o's seed of sc again, recording it, and writes its run
// file and the file's page (see labsim view) into dir, beside porcupine's
// page, saying where, or why not.
func writeRunFile(e *env, sc sweep.Scenario, scenario, plant string, o sweep.Outcome, dir string) {
	f, again, err := recordSeed(sc, scenario, plant, o.Seed)
	if err == nil && o.Summary != (sim.Summary{}) && again.Summary != o.Summary { // a seed that panicked has none
		err = fmt.Errorf("the seed did not replay: trace %016x, then %016x", o.Summary.Hash, again.Summary.Hash)
	}
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	path := filepath.Join(dir, runFileName(scenario, o.Seed))
	if err == nil {
		err = runfile.Save(path, f)
	}
	if err != nil {
		fmt.Fprintf(e.stdout, "  run file: not written: %v\n", err)
		return
	}
	fmt.Fprintf(e.stdout, "  run file: %s (%s replay %s)\n", path, e.replayCmd(), path)
	page := pagePath(path)
	if err := writePage(page, f); err != nil {
		fmt.Fprintf(e.stdout, "  its page: not written: %v\n", err)
		return
	}
	fmt.Fprintf(e.stdout, "  its page: %s (open it in a browser)\n", page)
}

// count writes n things, in the plural unless n is 1.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
