package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/sweep"
)

func sweepCmd(args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(out)
	seeds := fs.Int64("seeds", 100, "how many seeds to run")
	first := fs.Int64("first", 1, "the first seed")
	par := fs.Int("parallel", 0, "seeds to run at once (default: one per CPU)")
	shard := fs.String("shard", "0/1", "run only shard i of n of the seeds (i/n), to fan a sweep out over machines")
	one := fs.Int64("seed", 0, "replay this one seed, verbosely")
	trace := fs.String("trace", "", "with -seed: write the event trace to this file")
	dir := fs.String("out", "sweep-out", "directory for porcupine's visualizations of failures")
	name, err := oneArg(fs, args, "scenario")
	if err != nil {
		return err
	}
	sc, err := sweep.Lookup(name)
	if err != nil {
		return err
	}
	if *par < 0 {
		return fmt.Errorf("-parallel %d: must not be negative", *par)
	}
	if err := writableDir(*dir); err != nil {
		return err
	}
	if isSet(fs, "seed") {
		return replay(sc, *one, *trace, *dir, out)
	}
	if *trace != "" {
		return fmt.Errorf("-trace goes with -seed: trace one run at a time")
	}
	i, n, err := sweep.ParseShard(*shard)
	if err != nil {
		return err
	}
	list, err := sweep.Seeds(*first, *seeds, i, n)
	if err != nil {
		return err
	}
	bar := newProgress(errOut, sc.Name, len(list))
	start := time.Now()
	outcomes := sweep.Run(sc, list, *par, *dir, func(done, failed int) { bar.set(done, failed, "") })
	bar.finish()
	took := time.Since(start)
	failed := 0
	for _, o := range outcomes {
		if o.OK() {
			continue
		}
		failed++
		fmt.Fprintf(out, "seed %d: FAIL: %s\n  replay: go run ./cmd/labsim sweep %s -seed %d\n", o.Seed, o.Problem, sc.Name, o.Seed)
		if o.HTML != "" {
			fmt.Fprintf(out, "  porcupine: %s\n", o.HTML)
		}
	}
	fmt.Fprintf(out, "%s: %d seeds (shard %s of %d from %d), %d failing, %.1fs, %.1f seeds/s\n",
		sc.Name, len(list), *shard, *seeds, *first, failed, took.Seconds(), float64(len(list))/took.Seconds())
	if failed > 0 {
		return fmt.Errorf("%d of %d seeds failed", failed, len(list))
	}
	return nil
}

// replay runs one seed and prints everything about it.
func replay(sc sweep.Scenario, seed int64, trace, dir string, out io.Writer) error {
	w, closeTrace, err := traceFile(trace)
	if err != nil {
		return err
	}
	o := sc.Run(seed, dir, w)
	closeTrace()
	fmt.Fprintf(out, "%s seed %d: %d operations, %v\nfault log:\n%s", sc.Name, seed, o.Ops, o.Summary, o.FaultLog)
	if trace != "" {
		fmt.Fprintf(out, "event trace: %s\n", trace)
	}
	if !o.OK() {
		if o.HTML != "" {
			fmt.Fprintf(out, "porcupine: %s\n", o.HTML)
		}
		return fmt.Errorf("seed %d: %s", seed, o.Problem)
	}
	fmt.Fprintln(out, "linearizable: ok")
	return nil
}
