package labsim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/replab/replab/harness/experiments"
)

var runCmd = &command{
	name:  "run",
	args:  "EXPERIMENT [-seed N] [-full] [-out DIR]",
	short: "run one experiment and write its data and figures",
	arg:   "experiment",
	long: `
Run runs one experiment from its pinned seed, or from -seed N, and writes
its data as DIR/EXPERIMENT.csv and each of its figures as PNG and SVG. The
same seed gives byte-identical files. 'labsim list' shows the experiments;
the biggest take several seconds, with progress on stderr. -full runs
the paper's whole scale where the default run is cut down to keep
'labsim figures' short; 'labsim help EXPERIMENT' says how (concurrency,
say, counts Puts over 5 s instead of 0.5 s: ten times the work), and
'labsim list -v' shows which take it. It exits with status 1 if the
experiment fails.`,
	flags: func(fs *flag.FlagSet) action {
		seed := seedFlag(fs, 0, "start from seed `N` (default: the experiment's pinned seed)")
		full := fullFlag(fs)
		dir := fs.String("out", "out", "write the files into `DIR`")
		return func(e *env, name string) error {
			if name == "all" {
				return usagef("'labsim figures' runs all the experiments")
			}
			x, err := findExperiment(e, name)
			if err != nil {
				return err
			}
			if *full && x.Full == "" {
				return usagef("-full: %s is not cut down; it runs the paper's whole scale as it is", x.Name)
			}
			if err := checkOut(*dir); err != nil {
				return err
			}
			ps := experiments.Params{Seed: x.Seed, Full: *full}
			if isSet(fs, "seed") {
				ps.Seed = *seed
			}
			p := newProgress(e, "run", "experiments", 1, false)
			p.begin(x.Name)
			o := runExperiment(x, ps, *dir)
			p.end(x.Name, o.err != nil)
			p.finish()
			if o.err != nil {
				return o.err
			}
			fmt.Fprintf(e.stdout, "%s (seed %d, %.1fs): %s\n", x.Name, ps.Seed, o.took.Seconds(), x.Reproduces)
			for _, n := range o.result.Notes {
				fmt.Fprintf(e.stdout, "  %s\n", n)
			}
			for _, path := range o.paths {
				fmt.Fprintf(e.stdout, "  wrote %s\n", path)
			}
			return nil
		}
	},
}

var figuresCmd = &command{
	name:  "figures",
	args:  "[-out DIR] [-parallel P] [-full]",
	short: "run every experiment from its pinned seed and write an index",
	long: `
Figures runs every experiment from its pinned seed, P at a time, writes
each one's CSV, PNG and SVG files into DIR, and an index.md that shows
every figure with its caption and the command that regenerates it. The
same seeds give byte-identical files. It takes about a minute on two
cores, with progress on stderr; -full runs the papers' whole scale where
the default cuts it down (see 'labsim help run'), and takes longer. If an
experiment fails, figures runs the others, writes no index and exits with
status 1.`,
	flags: func(fs *flag.FlagSet) action {
		dir := fs.String("out", "figures", "write the files and index.md into `DIR`")
		par := parallelFlag(fs, "experiments")
		full := fullFlag(fs)
		return func(e *env, _ string) error {
			if err := checkOut(*dir); err != nil {
				return err
			}
			return figures(e, *dir, int(*par), *full)
		}
	},
}

// fullFlag defines -full.
func fullFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("full", false, "run the paper's whole scale where the default cuts it down ('labsim list -v' shows where)")
}

// figures runs every experiment, par at a time, into dir, at the papers'
// whole scale if full.
func figures(e *env, dir string, par int, full bool) error {
	start := time.Now()
	all := e.experiments
	outcomes := make([]outcome, len(all))
	p := newProgress(e, "figures", "experiments", len(all), false)
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	for i, x := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p.begin(x.Name)
			outcomes[i] = runExperiment(x, experiments.Params{Seed: x.Seed, Full: full}, dir)
			p.end(x.Name, outcomes[i].err != nil)
		}()
	}
	wg.Wait()
	p.finish()
	var failed []string
	for i, x := range all {
		o := outcomes[i]
		if o.err != nil {
			failed = append(failed, x.Name)
			fmt.Fprintf(e.stdout, "  %-16s FAIL: %v\n", x.Name, o.err)
			continue
		}
		fmt.Fprintf(e.stdout, "  %-16s %6.1fs  %d files\n", x.Name, o.took.Seconds(), len(o.paths))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d experiments failed (%s); no index written", len(failed), len(all), strings.Join(failed, ", "))
	}
	results := make([]*experiments.Result, len(all))
	for i := range outcomes {
		results[i] = outcomes[i].result
	}
	index := filepath.Join(dir, "index.md")
	if err := os.WriteFile(index, []byte(indexMarkdown(e.cmd(), all, results, full)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d experiments in %.1fs; see %s\n", len(all), time.Since(start).Seconds(), index)
	return nil
}

// An outcome is what running an experiment and writing its files gave.
type outcome struct {
	result *experiments.Result
	paths  []string
	took   time.Duration
	err    error
}

// runExperiment runs x with p and writes its files into dir. A panic
// inside the experiment becomes its error, with the stack, so that the
// other experiments of a figures run go on.
func runExperiment(x experiments.Experiment, p experiments.Params, dir string) (o outcome) {
	start := time.Now()
	defer func() {
		if v := recover(); v != nil {
			o.err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
		if o.err != nil {
			o.err = fmt.Errorf("%s (seed %d): %w", x.Name, p.Seed, o.err)
		}
		o.took = time.Since(start)
	}()
	o.result, o.err = x.Run(p)
	if o.err == nil {
		o.paths, o.err = o.result.Write(dir, x.Name)
	}
	return o
}

// indexMarkdown lists every figure with its caption, the paper figure it
// reproduces, its data and the command (cmd, then the arguments) that
// regenerates it (with -full if full).
func indexMarkdown(cmd string, all []experiments.Experiment, results []*experiments.Result, full bool) string {
	flag := ""
	if full {
		flag = " -full"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Figures\n\nRegenerate them all with `%s figures%s`.\n", cmd, flag)
	fmt.Fprintf(&b, "\n%s\n", paperFiguresLink)
	for i, e := range all {
		fmt.Fprintf(&b, "\n## %s\n\n%s. Reproduces: %s.\n\n", e.Name, capitalize(e.Description), e.Reproduces)
		for _, f := range results[i].Figures {
			fmt.Fprintf(&b, "![%s](%s.png)\n\n%s ([SVG](%s.svg))\n\n", f.Name, f.Name, f.Caption, f.Name)
		}
		for _, n := range results[i].Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		fmt.Fprintf(&b, "\nData: [%s.csv](%s.csv). Regenerate: `%s run %s -seed %d%s -out DIR`\n", e.Name, e.Name, cmd, e.Name, e.Seed, flag)
	}
	return b.String()
}

// paperFiguresLink is the index's pointer to docs/paper-figures.md, the
// papers' figures and tables one by one, each with the experiment that
// reproduces it and a verdict.
const paperFiguresLink = "The papers' figures and tables one by one, each beside the experiment that reproduces it, with the setup's differences and a verdict: [paper-figures.md](../paper-figures.md)."

// capitalize returns s with its first letter in upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
