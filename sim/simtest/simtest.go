// Package simtest runs world-driven tests the same way everywhere: it gives
// each test its seeds, checks that replaying a seed reproduces its trace
// hash, prints one summary line per run, and on failure prints the seed, the
// fault log and the exact command that replays the run.
//
// Seeds come from fixed defaults, so `go test ./...` is reproducible. The
// -seed flag (for one package) or the SIM_SEED environment variable (for
// any number of packages) replaces them with one seed, or with a
// comma-separated list of seeds run in that order; -seeds N or
// SIM_SEEDS with seeds 1 to N, all run even after one fails, and the
// failing ones listed with their replay commands. The -simtrace flag or
// SIM_TRACE names a directory to write each world's event trace into.
//
// SeedDriven and CheckSeedDriven find what in world code breaks the rule
// that a run is a function of its seed (goroutines, channels, locks, the
// wall clock, the global math/rand); a failing graded test lists what its
// package does of these.
package simtest

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/sim"
)

var (
	seedFlag   = flag.String("seed", "", "run world-driven tests with this seed only, or these comma-separated seeds in order (SIM_SEED does the same for any package)")
	seedsFlag  = flag.String("seeds", "", "run world-driven tests with seeds 1 to `N`, all of them, and list the seeds that fail with their replay commands (SIM_SEEDS does the same for any package)")
	traceFlag  = flag.String("simtrace", "", "write each world's event trace into this directory (or set SIM_TRACE)")
	recordFlag = flag.String("simrecord", "", "record each world, and write a failing test's run file into this directory, for labsim view (or set SIM_RECORD)")
)

// maxSeeds bounds -seeds: a million runs of a test is a typo, not a plan.
const maxSeeds = 1_000_000

// Seeds returns the seeds a test runs: the one given by -seed or SIM_SEED
// (or the comma-separated list given there), 1 to N for -seeds N or SIM_SEEDS, or else defaults. A malformed seed or
// count, or both a seed and a count, fails the test.
func Seeds(t testing.TB, defaults ...int64) []int64 {
	t.Helper()
	seeds, err := seedsFrom(setting(seedFlag, "SIM_SEED"), setting(seedsFlag, "SIM_SEEDS"), defaults)
	if err != nil {
		t.Fatal(err)
	}
	return seeds
}

// seedsFrom returns the seeds that a seed (one) and a number of seeds
// (many) given as text ask for, either of them "" if not given.
func seedsFrom(one, many string, defaults []int64) ([]int64, error) {
	switch {
	case one != "" && many != "":
		return nil, fmt.Errorf("simtest: a seed (%s) and a number of seeds (%s): give one", one, many)
	case one != "":
		var seeds []int64
		for _, s := range strings.Split(one, ",") {
			seed, err := strconv.ParseInt(s, 10, 64)
			switch {
			case err != nil && s == one:
				return nil, fmt.Errorf("simtest: seed %q is not an integer", one)
			case err != nil:
				return nil, fmt.Errorf("simtest: seed %q in %q is not an integer", s, one)
			}
			seeds = append(seeds, seed)
		}
		return seeds, nil
	case many != "":
		n, err := strconv.Atoi(many)
		if err != nil || n < 1 || n > maxSeeds {
			return nil, fmt.Errorf("simtest: number of seeds %q is not an integer from 1 to %d", many, maxSeeds)
		}
		seeds := make([]int64, n)
		for i := range seeds {
			seeds[i] = int64(i + 1)
		}
		return seeds, nil
	}
	return defaults, nil
}

// setting returns the flag's value, or else the environment variable's.
func setting(flag *string, env string) string {
	if *flag != "" {
		return *flag
	}
	return os.Getenv(env)
}

// manySeeds reports whether -seeds or SIM_SEEDS asks for a run over many
// seeds, which goes on past a failing seed.
func manySeeds() bool { return setting(seedsFlag, "SIM_SEEDS") != "" }

// A Result is what one run of a test body reports: its world, for the
// summary and the trace hash, and counts for the summary line.
type Result struct {
	World *sim.World
	Hosts int
	RPCs  int
	Bytes int64
	Ops   int
}

// Run runs body once per seed (see Seeds) as a subtest named seed=N, prints
// a summary line for each, and prints the replay command for a failing one.
// It stops at the first failing seed, except over -seeds N, where it runs
// them all and then lists the failing seeds with their replay commands.
// Then it runs the first seed again and fails if the run does not end with
// the same virtual time, event count and trace hash.
func Run(t *testing.T, defaults []int64, body func(t *testing.T, seed int64) Result) {
	t.Helper()
	run(t, defaults, body, nil)
}

// run is Run, noting in rec, if not nil, the seeds that ran and failed and
// whether the replay check passed.
func run(t *testing.T, defaults []int64, body func(t *testing.T, seed int64) Result, rec *GradeRecord) {
	t.Helper()
	if rec == nil {
		rec = &GradeRecord{}
	}
	seeds := Seeds(t, defaults...)
	var first sim.Summary
	for i, seed := range seeds {
		rec.Seeds = append(rec.Seeds, seed)
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			OnFailure(t, seed)
			start := time.Now()
			r := body(t, seed)
			if r.World == nil {
				t.Fatal("simtest: test body returned no world")
			}
			if i == 0 {
				first = r.World.Summary()
			}
			t.Logf("%s: virtual %.3fs wall %.3fs hosts %d rpcs %d bytes %d ops %d seed %d trace %016x",
				t.Name(), r.World.Now().Seconds(), time.Since(start).Seconds(), r.Hosts, r.RPCs, r.Bytes, r.Ops, seed, r.World.TraceHash())
		})
		if !ok {
			rec.Failed = append(rec.Failed, seed)
			if !manySeeds() {
				return
			}
		}
	}
	if len(rec.Failed) > 0 {
		t.Logf("%s", failedSeeds(t.Name(), len(seeds), rec.Failed))
		return
	}
	rec.Replayed = t.Run(fmt.Sprintf("replay=%d", seeds[0]), func(t *testing.T) {
		OnFailure(t, seeds[0])
		if err := sameRun(first, body(t, seeds[0]).World.Summary()); err != nil {
			t.Fatal(err)
		}
	})
}

// RunGraded runs body as Run does, as a test of a graded catalogue
// (package rafttest, say): it checks that t is the test function called
// name, and logs the test's part and points in the form a grade sheet
// reads ("part 3A, 5 points"). A run that panics fails like any failing
// run, with its seed and replay command, and the catalogue goes on with
// the next test: a student's panicking node costs one test, not all. A
// failing test also logs what in the package under test breaks the rule
// that a run is a function of its seed (see SeedDriven), if anything does.
// If SIM_GRADE_RECORD names a file, the test appends its GradeRecord
// there as it ends.
func RunGraded(t *testing.T, name, part string, points int, defaults []int64, body func(t *testing.T, seed int64) Result) {
	t.Helper()
	if t.Name() != name {
		t.Fatalf("simtest: %s runs the test %s: call it from a function with its name", t.Name(), name)
	}
	rec := &GradeRecord{Test: name, Part: part, Points: points}
	t.Cleanup(func() { record(t, rec) }) // the first cleanup runs last, when the test's outcome is known
	t.Logf("part %s, %d points", part, points)
	t.Cleanup(func() {
		if t.Failed() {
			explainSeedDriven(t)
		}
	})
	run(t, defaults, func(t *testing.T, seed int64) Result {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("panic: %v\n%s", p, panicStack())
			}
		}()
		return body(t, seed)
	}, rec)
}

// CheckDeclared fails t for each name that the Go file at path (relative
// to the package's directory) declares no function of: a catalogue's test
// file checks with it that it runs every test of the catalogue.
func CheckDeclared(t T, path string, names []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("simtest: %v", err)
		return
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			declared[fn.Name.Name] = true
		}
	}
	for _, name := range names {
		if !declared[name] {
			t.Errorf("%s declares no %s", path, name)
		}
	}
}

// panicStack returns the stack of the goroutine that is panicking, from
// the function that panicked down to the package under test's last frame
// (see trimStack).
func panicStack() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			lines = lines[i+2:] // the call to panic and its file
			break
		}
	}
	dir, _ := os.Getwd() // a test runs in its package's directory
	return strings.Join(trimStack(lines, dir), "\n")
}

// trimStack cuts a stack (a function's line, then its file's, for each
// frame) after the last frame in a file of dir, the package under test:
// what lies below is the test harness calling it. Without such a frame
// it keeps at most a dozen frames.
func trimStack(lines []string, dir string) []string {
	const maxFrames = 12
	last := -1
	for i := 1; i < len(lines); i += 2 {
		file := strings.TrimSpace(lines[i])
		if dir != "" && filepath.Dir(file) == dir {
			last = i
		}
	}
	switch {
	case last >= 0 && last+1 < len(lines):
		return append(lines[:last+1:last+1], "... (the test harness, which called it)")
	case last < 0 && len(lines) > 2*maxFrames:
		return append(lines[:2*maxFrames:2*maxFrames], "...")
	}
	return lines
}

// failedSeeds lists the seeds of the named test that failed, out of n,
// each with its replay command.
func failedSeeds(test string, n int, failed []int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d seeds failed:", len(failed), n)
	for _, seed := range failed {
		fmt.Fprintf(&b, "\n\tseed %d: %s", seed, ReplayCommand(test, seed))
	}
	return b.String()
}

// sameRun returns an error unless a replay ended as the first run did.
func sameRun(first, again sim.Summary) error {
	if first != again {
		return fmt.Errorf("simtest: nondeterminism: seed %d gave %v, then %v\n%s", first.Seed, first, again, nondeterminismCauses)
	}
	return nil
}

// nondeterminismCauses lists what makes one seed run two ways.
const nondeterminismCauses = `The same seed ran two ways, so something besides the seed decides what happens. The likely causes:
	- iterating over a map where the order matters (which peer first, what to encode): Go's map order differs from run to run; iterate over a slice, or sort the keys;
	- the wall clock (time.Now, time.Since): use the host's virtual clock, host.Now();
	- a goroutine, a channel, a lock or time.Sleep: they run outside the world's one goroutine; use timers (host.After) and callbacks;
	- math/rand's global functions: draw from host.World().Rand().`

// OnFailure makes a failing test print its seed and the command that
// replays it.
func OnFailure(t testing.TB, seed int64) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("FAILED with seed %d; replay with:\n\t%s", seed, ReplayCommand(t.Name(), seed))
		}
	})
}

// Explain makes a failing test print what describe returns (a fault log,
// say) under the given heading.
func Explain(t testing.TB, heading string, describe func() string) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s:\n%s", heading, describe())
		}
	})
}

// ReplayCommand returns the one-line command that reruns the named test
// (a subtest name is trimmed to its top-level test) with one seed.
func ReplayCommand(testName string, seed int64) string {
	top, _, _ := strings.Cut(testName, "/")
	return fmt.Sprintf("go test ./%s -run '^%s$' -seed %d -v", packageDir(), regexp.QuoteMeta(top), seed)
}

// packageDir returns the directory of the package under test relative to
// the module root (go test runs a package's tests in its directory).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return "."
			}
			return filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}

// NewWorld returns a world for seed. If a trace directory is set (-simtrace
// or SIM_TRACE), the world writes its event trace to a file there named
// after the test and seed, and the test logs the file's path; if a record
// directory is set (-simrecord or SIM_RECORD), the world is recorded, and
// a failing test writes its run file there (see recordWorld).
func NewWorld(t testing.TB, seed int64) *sim.World {
	t.Helper()
	w := sim.NewWorld(seed)
	recordWorld(t, w)
	dir := *traceFlag
	if dir == "" {
		dir = os.Getenv("SIM_TRACE")
	}
	if dir == "" {
		return w
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("simtest: trace directory: %v", err)
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	path := filepath.Join(dir, fmt.Sprintf("%s.seed%d.trace", name, seed))
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("simtest: trace file: %v", err)
	}
	buf := bufio.NewWriter(f)
	t.Cleanup(func() {
		buf.Flush()
		f.Close()
		t.Logf("event trace: %s", path)
	})
	w.SetTraceWriter(buf)
	return w
}
