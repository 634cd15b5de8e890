package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/replab/replab/experiments"
)

var runCmd = &command{
	name:  "run",
	args:  "EXPERIMENT [-seed N] [-out DIR]",
	short: "run one experiment and write its data and figures",
	arg:   "experiment",
	long: `
Run runs one experiment from its pinned seed, or from -seed N, and writes
its data as DIR/EXPERIMENT.csv and each of its figures as PNG and SVG. The
same seed gives byte-identical files. 'labsim list' shows the experiments;
the biggest take a minute or two, with progress on stderr. It exits with
status 1 if the experiment fails.`,
	flags: func(fs *flag.FlagSet) action {
		seed := seedFlag(fs, 0, "start from seed `N` (default: the experiment's pinned seed)")
		dir := fs.String("out", "out", "write the files into `DIR`")
		return func(e *env, name string) error {
			if name == "all" {
				return usagef("'labsim figures' runs all the experiments")
			}
			x, err := findExperiment(e, name)
			if err != nil {
				return err
			}
			if err := checkOut(*dir); err != nil {
				return err
			}
			s := x.Seed
			if isSet(fs, "seed") {
				s = *seed
			}
			p := newProgress(e, "run", "experiments", 1, false)
			p.begin(x.Name)
			o := runExperiment(x, s, *dir)
			p.end(x.Name, o.err != nil)
			p.finish()
			if o.err != nil {
				return o.err
			}
			fmt.Fprintf(e.stdout, "%s (seed %d, %.1fs): %s\n", x.Name, s, o.took.Seconds(), x.Reproduces)
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
	args:  "[-out DIR] [-parallel P]",
	short: "run every experiment from its pinned seed and write an index",
	long: `
Figures runs every experiment from its pinned seed, P at a time, writes
each one's CSV, PNG and SVG files into DIR, and an index.md that shows
every figure with its caption and the command that regenerates it. The
same seeds give byte-identical files. It takes a few minutes on two cores,
with progress on stderr. If an experiment fails, figures runs the others,
writes no index and exits with status 1.`,
	flags: func(fs *flag.FlagSet) action {
		dir := fs.String("out", "figures", "write the files and index.md into `DIR`")
		par := parallelFlag(fs, "experiments")
		return func(e *env, _ string) error {
			if err := checkOut(*dir); err != nil {
				return err
			}
			return figures(e, *dir, int(*par))
		}
	},
}

// figures runs every experiment, par at a time, into dir.
func figures(e *env, dir string, par int) error {
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
			outcomes[i] = runExperiment(x, x.Seed, dir)
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
	if err := os.WriteFile(index, []byte(indexMarkdown(all, results)), 0o644); err != nil {
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

// runExperiment runs x from seed and writes its files into dir. A panic
// inside the experiment becomes its error, with the stack, so that the
// other experiments of a figures run go on.
func runExperiment(x experiments.Experiment, seed int64, dir string) (o outcome) {
	start := time.Now()
	defer func() {
		if v := recover(); v != nil {
			o.err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
		if o.err != nil {
			o.err = fmt.Errorf("%s (seed %d): %w", x.Name, seed, o.err)
		}
		o.took = time.Since(start)
	}()
	o.result, o.err = x.Run(seed)
	if o.err == nil {
		o.paths, o.err = o.result.Write(dir, x.Name)
	}
	return o
}

// indexMarkdown lists every figure with its caption, the paper figure it
// reproduces, its data and the command that regenerates it.
func indexMarkdown(all []experiments.Experiment, results []*experiments.Result) string {
	var b strings.Builder
	b.WriteString("# Figures\n\nRegenerate them all with `go run ./cmd/labsim figures`.\n")
	for i, e := range all {
		fmt.Fprintf(&b, "\n## %s\n\n%s. Reproduces: %s.\n\n", e.Name, capitalize(e.Description), e.Reproduces)
		for _, f := range results[i].Figures {
			fmt.Fprintf(&b, "![%s](%s.png)\n\n%s ([SVG](%s.svg))\n\n", f.Name, f.Name, f.Caption, f.Name)
		}
		for _, n := range results[i].Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		fmt.Fprintf(&b, "\nData: [%s.csv](%s.csv). Regenerate: `go run ./cmd/labsim run %s -seed %d -out DIR`\n", e.Name, e.Name, e.Name, e.Seed)
	}
	return b.String()
}

// capitalize returns s with its first letter in upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
