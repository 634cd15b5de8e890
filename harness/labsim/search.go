package labsim

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/runview"
	"github.com/replab/replab/harness/search"
)

// maxSearchDepth bounds -depth: past it no search finishes anyway.
const maxSearchDepth = 10_000

var searchCmd = &command{
	name:    "search",
	args:    "SCENARIO [-strategy S] [-inorder] [-depth D] [-budget N] [-time T] [-out DIR]\nSCENARIO -replay PATH [-plant BUG] [-faults F] [-drops K] [-dups K] [-out DIR]\nlist",
	short:   "explore a small world's schedules systematically, not by seed",
	arg:     "scenario",
	argHint: "('labsim search list' lists them)",
	long: `
Search explores the schedules of a small world (three Raft servers and a
client's writes, three kvraft servers and two clients, shardtxn's two
shards and coordinator and two clients, or a frangipani lock server and
two caching clerks) instead of
sampling them from seeds: at each step it chooses which message in flight
is delivered next (a message may be delayed past later ones, never
delivered early), or dropped (within -drops), or, for a request,
duplicated (within -dups), when the next timer fires (never early, never
skipped), and which fault strikes (within -faults: a crash, an
isolation, or a bridge that cuts two servers apart but for the third;
restarts, reconnections and lifting a bridge are free). Raft's safety properties
are checked in every state explored: election safety, log matching,
leader completeness, state-machine safety, lease safety (no two servers
hold a read lease at once), and that what a server applied is on a
majority of logs; in kv-ops, linearizability of the clients' history so
far (porcupine, per key); in txn-2pc, lock safety and atomic decisions,
judged from what the shards apply; in locks, lock safety judged with the
leases' expiry. docs/search.md says what the strategies and state hashing do.

  -strategy bfs  breadth-first to -depth with state hashing (-nohash: none);
                 the violation it finds is a shortest one
  -strategy dfs  random walks to -depth (seeded by -seed)
  -strategy pct  random walks scheduled by PCT, with -d priority change
                 points less one (Burckhardt et al., ASPLOS 2010)
  -strategy guided  random walks, each from a schedule that reached a
                 shape of the servers' state not seen before (coverage-
                 guided, as a fuzzer keeps its new-coverage inputs)
  -inorder       fire the events in the world's own order: the search
                 chooses only the faults, drops and duplicates (and the
                 client's writes, where they are choices)

-budget bounds the states explored, -time the wall time. A violation is
printed with its schedule (the option taken at each step) and the command
that replays it (-replay); with -out it is also written as a run file and
its page ('labsim view'). Search exits 1 if it finds a violation. -goal
stops at the first state where some server has applied each write, and
prints the schedule that got there. -plant switches on one of the
scenario's planted bugs, Raft's or rsm's (-plant list lists them).`,
	flags: func(fs *flag.FlagSet) action {
		strategy := fs.String("strategy", "bfs", "explore by `S`: bfs, dfs, pct or guided")
		depth := intFlag(fs, "depth", 20, 1, maxSearchDepth, fmt.Sprintf("take at most `D` steps a schedule, 1 to %d", maxSearchDepth))
		budget := intFlag(fs, "budget", 100_000, 0, math.MaxInt32, "explore at most `N` states (0: no bound but -depth and -time)")
		wall := fs.Duration("time", 0, "stop after `T` of wall time (0: no limit)")
		faults := intFlag(fs, "faults", -1, -1, 100, "fault budget `F` (-1: the scenario's)")
		drops := intFlag(fs, "drops", -1, -1, 100, "drop at most `K` messages a schedule (-1: the scenario's)")
		dups := intFlag(fs, "dups", -1, -1, 100, "duplicate at most `K` requests a schedule (-1: the scenario's)")
		seed := seedFlag(fs, 1, "the world's seed and the random walks'")
		d := intFlag(fs, "d", 2, 1, 100, "PCT's bug depth `d`: d-1 priority change points")
		nohash := fs.Bool("nohash", false, "no state hashing: bfs explores every schedule, walks count no distinct states")
		inorder := fs.Bool("inorder", false, "fire the events in the world's own order; search only the faults, drops and duplicates")
		goal := fs.Bool("goal", false, "stop at the first state where some server has applied each write")
		par := parallelFlag(fs, "schedules")
		plant := fs.String("plant", "", "switch on the scenario's planted bug named `BUG` (list: the bugs)")
		replay := fs.String("replay", "", "replay the schedule `PATH` (as a search prints it) instead of searching")
		out := fs.String("out", "", "write a violation's run file and page into `DIR`")
		return func(e *env, name string) error {
			scs := search.Scenarios()
			if name == "list" {
				for _, sc := range scs {
					fmt.Fprintf(e.stdout, "%-20s %s\n", sc.Name, sc.Doc)
				}
				return nil
			}
			sc, err := find(scs, func(sc search.Scenario) string { return sc.Name }, "search scenario", name)
			if err != nil {
				return usagef("%s", strings.Replace(err.Error(), "'labsim list'", "'labsim search list'", 1))
			}
			if *plant == "list" {
				for _, b := range sc.Bugs {
					fmt.Fprintln(e.stdout, b)
				}
				return nil
			}
			if *out != "" {
				if err := checkOut(*out); err != nil {
					return err
				}
			}
			o := search.Options{Strategy: search.Strategy(*strategy), Seed: *seed, Depth: int(*depth), Budget: int(*budget), Wall: *wall,
				Faults: int(*faults), Drops: int(*drops), Dups: int(*dups), NoHash: *nohash, D: int(*d), Workers: int(*par), StopAtGoal: *goal, Bug: *plant, InOrder: *inorder}
			if *replay != "" || isSet(fs, "replay") {
				return replaySchedule(e, sc, o, *replay, *out)
			}
			res, err := search.Search(sc, o)
			if err != nil {
				return usagef("%v", err)
			}
			printSearch(e, res)
			if res.Goal != nil && o.StopAtGoal {
				fmt.Fprintf(e.stdout, "goal: some server applied each write after %s: %s\n", count(len(res.Goal.Path), "step"), res.Goal.Path)
				printSteps(e, res.Goal.Steps)
			}
			if res.Violation == nil {
				return nil
			}
			return violation(e, sc, res.Options, res.Violation, *out)
		}
	},
}

// printSearch prints what a search explored.
func printSearch(e *env, r search.Result) {
	o := r.Options
	end := "cut short by its budget"
	switch {
	case r.Violation != nil:
		end = "stopped at a violation"
	case r.Goal != nil && o.StopAtGoal:
		end = "stopped at the goal"
	case r.Complete:
		end = "complete"
	case o.Strategy != search.BFS:
		end = "its budget spent"
	}
	distinct := ""
	if !o.NoHash {
		distinct = fmt.Sprintf(" (%d distinct)", r.Distinct)
	}
	strategy := string(o.Strategy)
	if o.InOrder {
		strategy += " -inorder"
	}
	fmt.Fprintf(e.stdout, "search %s -strategy %s: %s%s over %s to depth %d in %v (%.0f states/s on %s), %s\n",
		r.Scenario, strategy, count(r.States, "state"), distinct, count(r.Schedules, "schedule"), r.MaxDepth,
		r.Wall.Round(time.Millisecond), r.StatesPerSecond(), count(o.Workers, "worker"), end)
}

// printSteps prints a schedule's steps, numbered.
func printSteps(e *env, steps []string) {
	for i, s := range steps {
		fmt.Fprintf(e.stdout, "  %3d  %s\n", i+1, s)
	}
}

// violation prints a found violation, the command that replays it, and
// with dir its run file and page; it returns the error that makes labsim
// exit 1.
func violation(e *env, sc search.Scenario, o search.Options, f *search.Found, dir string) error {
	fmt.Fprintf(e.stdout, "violation after %s: %v\n", count(len(f.Path), "step"), f.Err)
	printSteps(e, f.Steps)
	fmt.Fprintf(e.stdout, "%v\n", f.Summary)
	replay := fmt.Sprintf("%s search %s -seed %d -faults %d -drops %d -dups %d -replay %s", e.cmd(), sc.Name, o.Seed, o.Faults, o.Drops, o.Dups, f.Path)
	if o.Bug != "" {
		replay += " -plant " + quoteArg(o.Bug)
	}
	fmt.Fprintf(e.stdout, "replay: %s\n", replay)
	if dir != "" {
		if err := writeFinding(e, sc, o, f, dir); err != nil {
			return err
		}
	}
	return errors.New("the search found a violation")
}

// quoteArg quotes s for a shell if it holds anything but letters, digits
// and -_.
func quoteArg(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeFinding writes f's run file and page into dir.
func writeFinding(e *env, sc search.Scenario, o search.Options, f *search.Found, dir string) error {
	file, err := search.RunFile(sc, o, f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, sc.Name+"-"+strings.ReplaceAll(search.Kind(f.Err), " ", "-"))
	if err := runfile.Save(base+".json", file); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := runview.Write(&b, file); err != nil {
		return err
	}
	if err := os.WriteFile(base+".html", b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s.json and %s.html\n", base, base)
	return nil
}

// replaySchedule replays one schedule and prints what it did.
func replaySchedule(e *env, sc search.Scenario, o search.Options, p, dir string) error {
	path, err := search.ParsePath(p)
	if err != nil {
		return usagef("-replay %s: %v", p, err)
	}
	o.Strategy, o.Depth, o.Budget = search.BFS, max(len(path), 1), 0
	f, err := search.Replay(sc, o, path)
	if err != nil {
		return usagef("-replay %s: %v", p, err)
	}
	if f.Err != nil {
		return violation(e, sc, o, f, dir)
	}
	fmt.Fprintf(e.stdout, "%s replayed, no invariant broken:\n", count(len(path), "step"))
	printSteps(e, f.Steps)
	fmt.Fprintf(e.stdout, "%v\n", f.Summary)
	return nil
}
