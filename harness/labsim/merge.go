package labsim

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/replab/replab/harness/sweep"
)

var mergeCmd = &command{
	name:    "merge",
	args:    "FILE|DIR... [-json FILE] [-markdown FILE]",
	short:   "put the results files of a sweep's shards together into one verdict",
	arg:     "results file",
	argHint: "name the shards' files ('labsim sweep -json FILE'), or directories of them",
	long: `
Merge reads the results files that the shards of one sweep wrote
('labsim sweep SCENARIO -shard i/n -json FILE', one per shard; a directory
stands for the .jsonl files in it), checks that they add up to the sweep
(the same scenario, seeds, number of shards and build, every shard once,
each with all its seeds and a summary line), and prints one verdict: every
failing seed with the command that replays it, the seeds' count and what
they cost in core-seconds, and how the configurations the seeds drew
spread, if they drew any. It exits with status 1 if any seed failed, and
2, naming the file or the shards, if the files do not add up: a shard
missing or given twice, a file cut short, another scenario, format or
build. -json writes the merged results as one results file of the whole
sweep, as one unsharded run would have written it (but for wall times).
-markdown writes the verdict and the spreads, of what the runs came to and
of every parameter the seeds drew, as a Markdown section for the docs
(docs/swarms.md is made of them).`,
	flagsMany: func(fs *flag.FlagSet) actionMany {
		jsonOut := fs.String("json", "", "also write the merged results, as one file of the whole sweep, to `FILE` (or a directory)")
		mdOut := fs.String("markdown", "", "also write the verdict and the spreads as a Markdown section to `FILE`")
		return func(e *env, args []string) error {
			files, err := resultsFiles(args)
			if err != nil {
				return err
			}
			var all []*sweep.Results
			for _, name := range files {
				r, err := readResults(name)
				if err != nil {
					return err
				}
				all = append(all, r)
			}
			m, err := sweep.Merge(all)
			if err != nil {
				return usageError{err}
			}
			var out *resultsWriter
			if *jsonOut != "" {
				path := resultsPath(*jsonOut, m.Summary.Scenario, &shard{n: 1})
				if out, err = createResults("-json", *jsonOut, path); err != nil {
					return err
				}
			}
			var md *os.File
			if *mdOut != "" {
				if md, err = os.Create(*mdOut); err != nil {
					return usagef("-markdown %s: %v", *mdOut, errors.Unwrap(err))
				}
				defer md.Close()
			}
			printMerged(e, m)
			var seeds []sweep.SeedRecord
			for _, r := range all {
				seeds = append(seeds, r.Seeds...)
			}
			printSpread(e, seeds)
			if md != nil {
				if err := writeMarkdown(md, m, seeds); err != nil {
					return err
				}
				if err := md.Close(); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "markdown: %s\n", *mdOut)
			}
			if out != nil {
				if err := writeMerged(out, m, all); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "results: %s\n", out.path)
			}
			if m.Summary.Failed > 0 {
				return fmt.Errorf("%d of %s failed", m.Summary.Failed, count(m.Summary.Ran, "seed"))
			}
			return nil
		}
	},
}

// resultsFiles returns the files that args name: each file, and the .jsonl
// files in each directory, or a usage error naming an argument that is
// neither or a directory without any.
func resultsFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, usagef("%s: %v", a, errors.Unwrap(err))
		}
		if !fi.IsDir() {
			files = append(files, a)
			continue
		}
		found, err := fs.Glob(os.DirFS(a), "*.jsonl")
		if err != nil {
			return nil, usagef("%s: %v", a, err)
		}
		if len(found) == 0 {
			return nil, usagef("%s: a directory without results files (*.jsonl) in it", a)
		}
		for _, f := range found {
			files = append(files, filepath.Join(a, f))
		}
	}
	return files, nil
}

// readResults reads and checks one results file; a file that cannot be
// read or is not whole is a usage error that names it.
func readResults(name string) (*sweep.Results, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, usagef("%s: %v", name, errors.Unwrap(err))
	}
	defer f.Close()
	r, err := sweep.ReadResults(name, f)
	if err != nil {
		return nil, usageError{err}
	}
	return r, nil
}

// printMerged prints the verdict of a merged sweep: the failing seeds, the
// count, the cost and the verdict.
func printMerged(e *env, m *sweep.Merged) {
	s := m.Summary
	for _, f := range m.Failing {
		fmt.Fprintf(e.stdout, "seed %d: FAIL: %s\n  replay: %s\n", f.Seed, f.Problem, f.Replay)
		if f.File != "" {
			fmt.Fprintf(e.stdout, "  porcupine: %s (where the shard of %s ran)\n", f.File, f.From)
		}
	}
	name := s.Scenario
	if s.Plant != "" {
		name = fmt.Sprintf("%s -plant %q", s.Scenario, s.Plant)
	}
	fmt.Fprintf(e.stdout, "%s: %s (%s, %s), %d failing\n", name, count(s.Ran, "seed"), s.Span(), count(s.Shards, "shard"), s.Failed)
	printCost(e, m)
	if s.Failed > 0 {
		fmt.Fprintf(e.stdout, "verdict: FAIL: %d of %s failed\n", s.Failed, count(s.Ran, "seed"))
	} else {
		fmt.Fprintf(e.stdout, "verdict: ok: %s passed\n", count(s.Ran, "seed"))
	}
}

// printSpread prints how the configurations the seeds drew spread, if
// they drew any.
func printSpread(e *env, seeds []sweep.SeedRecord) {
	spread := sweep.Spread(seeds)
	if len(spread) == 0 {
		return
	}
	fmt.Fprintln(e.stdout, "configurations drawn:")
	for _, p := range spread {
		fmt.Fprintf(e.stdout, "  %v\n", p)
	}
}

// printCost prints what the sweep cost: in CPU time if every shard said
// (however busy its machine was), else in the seeds' wall times, which
// count a seed's waits for a core on a busy machine.
func printCost(e *env, m *sweep.Merged) {
	s := m.Summary
	cost, unit := s.CPUSeconds, "CPU-seconds"
	if cost == 0 {
		cost, unit = m.SeedSeconds, "seconds of the seeds' wall time"
	}
	if cost <= 0 || s.Ran == 0 {
		return
	}
	rate := float64(s.Ran) / cost
	fmt.Fprintf(e.stdout, "cost: %.1f %s, %.2f seeds a core-second (a million seeds: %.1f core-hours); the longest shard took %.1fs\n",
		cost, unit, rate, 1e6/rate/3600, s.WallSeconds)
}

// writeMerged writes the merged results as one file of the whole sweep:
// every seed's line in seed order (seed first+k is the k/n-th of shard k
// mod n), then a summary of one shard that says it came from a merge.
func writeMerged(out *resultsWriter, m *sweep.Merged, all []*sweep.Results) error {
	sum := m.Summary
	shards := make([]*sweep.Results, sum.Shards)
	for _, r := range all {
		shards[r.Summary.Shard] = r
	}
	for k := range sum.Ran {
		out.seed(k, shards[k%sum.Shards].Seeds[k/sum.Shards])
	}
	sum.Shard, sum.Shards, sum.ShardFrom = 0, 1, sweep.ShardFromMerge
	return out.finish(sum)
}
