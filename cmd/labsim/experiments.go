package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/replab/replab/experiments"
	"github.com/replab/replab/sweep"
)

func list(args []string, out io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("list takes no arguments, got %q", args)
	}
	tw := tabwriter.NewWriter(out, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "EXPERIMENT\tREPRODUCES\tWHAT")
	for _, e := range experiments.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Reproduces, e.Description)
	}
	fmt.Fprintln(tw, "\nSWEEP SCENARIO\t\tWHAT")
	for _, s := range sweep.Scenarios() {
		fmt.Fprintf(tw, "%s\t\t%s\n", s.Name, s.Description)
	}
	return tw.Flush()
}

// writableDir makes dir if needed and checks that files can be created in it.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write to %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".labsim-*")
	if err != nil {
		return fmt.Errorf("cannot write to %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// oneArg splits a command's name argument from its flags, which may come
// before or after it.
func oneArg(fs *flag.FlagSet, args []string, what string) (string, error) {
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if name == "" {
		return "", fmt.Errorf("which %s? (labsim list shows them)", what)
	}
	return name, nil
}

func runExperiment(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(out)
	seed := fs.Int64("seed", 0, "seed (default: the experiment's pinned seed)")
	dir := fs.String("out", "out", "directory for the CSV, PNG and SVG files")
	name, err := oneArg(fs, args, "experiment")
	if err != nil {
		return err
	}
	e, err := experiments.Lookup(name)
	if err != nil {
		return err
	}
	if err := writableDir(*dir); err != nil {
		return err
	}
	s := e.Seed
	if isSet(fs, "seed") {
		s = *seed
	}
	start := time.Now()
	r, err := e.Run(s)
	if err != nil {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	paths, err := r.Write(*dir, e.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s (seed %d, %.1fs): %s\n", e.Name, s, time.Since(start).Seconds(), e.Reproduces)
	for _, n := range r.Notes {
		fmt.Fprintf(out, "  %s\n", n)
	}
	for _, p := range paths {
		fmt.Fprintf(out, "  wrote %s\n", p)
	}
	return nil
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// figures runs every experiment from its pinned seed, writes its files and
// an index.md that shows each figure with its caption and the command that
// regenerates it.
func figures(args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("figures", flag.ContinueOnError)
	fs.SetOutput(out)
	dir := fs.String("out", "figures", "directory for the figures and index.md")
	par := fs.Int("parallel", 2, "experiments to run at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("figures takes no arguments, got %q", fs.Args())
	}
	if *par < 1 {
		return fmt.Errorf("-parallel %d: must be at least 1", *par)
	}
	if err := writableDir(*dir); err != nil {
		return err
	}
	all := experiments.All()
	results := make([]*experiments.Result, len(all))
	errs := make([]error, len(all))
	bar := newProgress(errOut, "figures", len(all))
	start := time.Now()
	var mu sync.Mutex
	done, failed := 0, 0
	var wg sync.WaitGroup
	sem := make(chan struct{}, *par)
	for i, e := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := e.Run(e.Seed)
			if err == nil {
				_, err = r.Write(*dir, e.Name)
			}
			mu.Lock()
			results[i], errs[i] = r, err
			done++
			if err != nil {
				failed++
			}
			bar.set(done, failed, e.Name)
			mu.Unlock()
		}()
	}
	wg.Wait()
	bar.finish()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	index := filepath.Join(*dir, "index.md")
	if err := os.WriteFile(index, []byte(indexMarkdown(all, results)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d experiments in %.1fs; see %s\n", len(all), time.Since(start).Seconds(), index)
	return nil
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
