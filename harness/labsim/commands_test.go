package labsim

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/harness/sweep"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemoReplaysItsSeed(t *testing.T) {
	r := labsim(nil, "demo", "-seed", "3", "-duration", "10s")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "a ping counter, not Raft: 5 hosts pinging each other for 10s of virtual time")
	assert.Contains(t, r.stdout, "fault log (seed 3):")
	counts := regexp.MustCompile(`\n(\d+) pings sent \(\d+ bytes\): (\d+) answered, (\d+) failed \(lost, or cut off by a fault\), (\d+) with no outcome \(`).FindStringSubmatch(r.stdout)
	require.NotNil(t, counts, r.stdout)
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(counts[i+1])
	}
	assert.GreaterOrEqual(t, n[3], 0, "no ping is counted twice, so the counts add up")
	assert.Positive(t, n[1])
	assert.Positive(t, n[2])
	assert.Regexp(t, `\n5 hosts, [0-5] of them alive at the end\n`, r.stdout)
	m := regexp.MustCompile(`trace=([0-9a-f]{16})`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	assert.Contains(t, r.stdout, "replayed seed 3: same trace hash "+m[1])

	other := labsim(nil, "demo", "-seed", "4", "-duration", "10s")
	require.Equal(t, exitOK, other.code, other.stderr)
	assert.NotContains(t, other.stdout, m[1], "another seed, another trace")
}

// TestDemoInPieces checks that running the demo's world in pieces, to
// show progress, gives the same run as running it at once.
func TestDemoInPieces(t *testing.T) {
	whole, err := runDemo(5, 4, 20*time.Second, 1, nil, func() {})
	require.NoError(t, err)
	steps := 0
	pieces, err := runDemo(5, 4, 20*time.Second, 7, nil, func() { steps++ })
	require.NoError(t, err)
	assert.Equal(t, 7, steps)
	assert.Equal(t, whole.summary, pieces.summary)
	assert.Equal(t, 20*time.Second, pieces.summary.Now)
}

func TestList(t *testing.T) {
	r := labsim(realEnv(), "list")
	require.Equal(t, exitOK, r.code)
	assert.Regexp(t, `\n  live-nodes +re-election time as leaders of 31 servers`, r.stdout)
	assert.Regexp(t, `\n  kv-linearizability +Five key/value servers`, r.stdout)
	assert.NotContains(t, r.stdout, "Raft-KV-with-ChaosMonkey paper", "the details are for -v")

	v := labsim(realEnv(), "list", "-v")
	require.Equal(t, exitOK, v.code)
	assert.Contains(t, v.stdout, "\nlive-nodes\n    re-election time")
	assert.Contains(t, v.stdout, "    reproduces: Raft-KV-with-ChaosMonkey paper, Fig. 9\n")
	assert.Contains(t, v.stdout, "    pinned seed: 1\n")
}

func TestWrap(t *testing.T) {
	assert.Equal(t, []string{"aa bb", "cc", "dddddddd", "e"}, wrap("aa bb cc dddddddd e", 5))
	assert.Equal(t, []string{""}, wrap("", 5))
	assert.Equal(t, []string{"übér", "ñ"}, wrap("übér ñ", 5), "counts characters, not bytes")
	assert.Equal(t, []string{"over", "0.5 s,", "20 %."}, wrap("over 0.5 s, 20 %.", 5), "a unit stays with its number")
	assert.Equal(t, []string{"s of", "it"}, wrap("s of it", 5), "a unit with nothing before it")
}

func TestRunWritesAnExperiment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	r := labsim(realEnv(), "run", "election-cdf", "-out", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "election-cdf (seed 1")
	for _, f := range []string{"election-cdf.csv", "election-cdf.png", "election-cdf.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	assert.Contains(t, r.stderr, "run: 0/1 experiments, 0s elapsed; running election-cdf\n")

	seeded := labsim(nil, "run", "-seed", "9", "tiny", "-out", dir)
	require.Equal(t, exitOK, seeded.code, seeded.stderr)
	assert.Contains(t, seeded.stdout, "tiny (seed 9, ")
	assert.Contains(t, seeded.stdout, "  ran seed 9, full false\n")
	assert.Contains(t, labsim(nil, "run", "tiny", "-out", dir).stdout, "  ran seed 3, full false\n", "the pinned seed")
	assert.Contains(t, labsim(nil, "run", "tiny", "-full", "-out", dir).stdout, "  ran seed 3, full true\n")
	r = labsim(realEnv(), "run", "election-cdf", "-full", "-out", dir)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "-full: election-cdf is not cut down; it runs the paper's whole scale as it is")
}

func TestHelpSaysWhatFullChanges(t *testing.T) {
	r := labsim(realEnv(), "help", "concurrency")
	assert.Contains(t, r.stdout, "-full counts Puts over the paper's 5 s instead of\n    0.5 s")
	assert.Contains(t, r.stdout, "run: labsim run concurrency [-seed N] [-full] [-out DIR]")
	r = labsim(realEnv(), "help", "election-cdf")
	assert.NotContains(t, r.stdout, "-full")
}

func TestFigures(t *testing.T) {
	e := fakeEnv()
	e.experiments = e.experiments[:1] // without the broken one
	dir := t.TempDir()
	r := labsim(e, "figures", "-out", dir, "-parallel", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `  tiny +\d+\.\ds  1 files\n1 experiments in`, r.stdout)
	index, err := os.ReadFile(filepath.Join(dir, "index.md"))
	require.NoError(t, err)
	assert.Contains(t, string(index), "## tiny\n\nA fake that writes a table. Reproduces: nothing.")
	assert.Contains(t, string(index), "`go run ./cmd/labsim run tiny -seed 3 -out DIR`")

	r = labsim(e, "figures", "-out", dir, "-full")
	require.Equal(t, exitOK, r.code, r.stderr)
	index, err = os.ReadFile(filepath.Join(dir, "index.md"))
	require.NoError(t, err)
	assert.Contains(t, string(index), "Regenerate them all with `go run ./cmd/labsim figures -full`.")
	assert.Contains(t, string(index), "\n"+paperFiguresLink+"\n", "the index points to the papers' figures one by one")
	assert.Contains(t, string(index), "- ran seed 3, full true\n")
	assert.Contains(t, string(index), "`go run ./cmd/labsim run tiny -seed 3 -full -out DIR`")
}

func TestSweepAndReplay(t *testing.T) {
	dir := t.TempDir()
	r := labsim(realEnv(), "sweep", "kv-linearizability", "-seeds", "4", "-shard", "1/2", "-out", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "kv-linearizability: 2 seeds (shard 1/2 of 1 to 4), 0 failing")

	trace := filepath.Join(dir, "trace.txt")
	r = labsim(realEnv(), "sweep", "kv-linearizability", "-seed", "2", "-trace", trace, "-out", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "verdict: ok")
	info, err := os.Stat(trace)
	require.NoError(t, err)
	assert.Positive(t, info.Size())
}

// A replay needs no writable directory unless one is asked for: where the
// default sweep-out cannot be made (here a file of that name is in the
// way, as a read-only checkout would be), it replays and draws nothing,
// and says so for a failing seed; an -out that cannot be written is still
// refused.
func TestReplayWhereSweepOutCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("sweep-out", nil, 0o444))
	r := labsim(realEnv(), "sweep", "kv-linearizability", "-seed", "2")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "verdict: ok")
	r = labsim(realEnv(), "sweep", "txn-crossing", "-plant", "shardtxn: fixed instead of randomized lock waits", "-seed", "1")
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.Contains(t, r.stdout, "porcupine's visualization is not written: sweep-out cannot be written here")
	r = labsim(realEnv(), "sweep", "kv-linearizability", "-seed", "2", "-out", "sweep-out")
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, "-out sweep-out: sweep-out is not a directory")
}

func TestKit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kit")
	r := labsim(nil, "kit", "raft", "-out", dir, "-module", "example.edu/lab")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "wrote the raft kit (module example.edu/lab) into "+dir+"\n"+
		"its README says how to start; 'go test ./...' there fails with \"not implemented\" until the skeleton is written\n", r.stdout)
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "module example.edu/lab\n")
	skeleton, err := os.ReadFile(filepath.Join(dir, "raft", "raft.go"))
	require.NoError(t, err)
	assert.Contains(t, string(skeleton), `"example.edu/lab/raft/raftapi"`)

	again := labsim(nil, "kit", "raft", "-out", dir)
	assert.Equal(t, exitUsage, again.code, "a kit never overwrites one")
	assertOneError(t, again, "-out "+dir+": not empty")

	t.Chdir(t.TempDir())
	r = labsim(nil, "kit", "raft")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(module lab) into raft-kit\n", "the defaults")
}

func TestGrade(t *testing.T) {
	in := filepath.Join("..", "kit", "testdata", "raft-planted-bug.json")
	sheet := filepath.Join(t.TempDir(), "sheet.json")
	r := labsim(nil, "grade", "-in", in, "-json", sheet)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "labsim grade: 11 of 100 points, and not a full grade: 24 of the catalogue's 28 tests did not run to the end\n", r.stderr)
	assert.Contains(t, r.stdout, "TestFigure8Unreliable          3C       0/4  fail (seed 1)\n"+
		"    replay: go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v\n")
	assert.Contains(t, r.stdout, "TestReElection                 3A       0/5  not run\n")
	assert.Contains(t, r.stdout, "total     11/100\n")
	b, err := os.ReadFile(sheet)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"replay": "go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v"`)

	build := labsim(nil, "grade", "-in", filepath.Join("..", "kit", "testdata", "raft-build-failed.json"))
	assert.Equal(t, exitFailed, build.code)
	assert.Equal(t, "labsim grade: 0 of 100 points: example.edu/course/lab/raft does not build: raft/raft.go:246:17: undefined: undefined\n", build.stderr)

	e := fakeEnv()
	e.stdin = strings.NewReader(`{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    x_test.go:1: part 3A, 85 points\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.5}
{"Action":"pass","Package":"p","Elapsed":0.6}
`)
	which := labsim(e, "grade")
	assert.Equal(t, exitUsage, which.code)
	assertOneError(t, which, "cannot tell which lab the run is of (kvraft or raft): name it with -lab")

	e.stdin = strings.NewReader("PASS\n")
	e.stdinTTY = true
	none := labsim(e, "grade", "-lab", "raft")
	assert.Equal(t, exitFailed, none.code)
	assert.Equal(t, "labsim grade: reading 'go test -json' output from standard input, until end of input (Ctrl-D);\n"+
		"pipe a run in (go test -json ./raft | labsim grade) or name a file with -in FILE\n"+
		"labsim grade: no go test -json events in the input (run go test -json)\n", none.stderr)

	unwritten := filepath.Join(t.TempDir(), "sheet.json")
	e.stdin = strings.NewReader("PASS\n")
	labsim(e, "grade", "-json", unwritten)
	assert.NoFileExists(t, unwritten, "no sheet, no file")
}

// TestSweepPlanted runs a sweep with a planted bug: it fails, and the
// replay line plants the bug again; -plant list lists a scenario's bugs,
// and a bug it cannot plant is refused.
func TestSweepPlanted(t *testing.T) {
	dir := t.TempDir()
	r := labsim(realEnv(), "sweep", "txn-crossing", "-plant", "fixed instead of randomized lock waits", "-seeds", "1", "-out", dir)
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.Contains(t, r.stdout, "seed 1: FAIL: a client starved")
	assert.Contains(t, r.stdout, `sweep txn-crossing -plant "fixed instead of randomized lock waits" -seed 1`)

	r = labsim(realEnv(), "sweep", "txn-crossing", "-plant", "shardtxn: fixed instead of randomized lock waits", "-seed", "1", "-out", dir)
	assert.Equal(t, exitFailed, r.code, r.stderr)

	r = labsim(realEnv(), "sweep", "txn-crossing", "-plant", "list")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "  \"fixed instead of randomized lock waits\"\n")
	assert.NotContains(t, r.stdout, "votedFor")

	r = labsim(realEnv(), "sweep", "locks-isolate", "-plant", "fixed instead of randomized lock waits")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "scenario locks-isolate cannot plant \"fixed instead of randomized lock waits\": it plants no bug of package shardtxn")
	r = labsim(realEnv(), "sweep", "locks-isolate", "-plant", "no such bug")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `unknown planted bug "no such bug"; 'labsim sweep locks-isolate -plant list' lists the bugs it can plant`)
	r = labsim(realEnv(), "sweep", "txn-crossing", "-plant", "fixed instead of randomised lock waits")
	assert.Contains(t, r.stderr, `; did you mean "fixed instead of randomized lock waits"?`, "quoted, to paste")
}

func TestReplayRunsTheProgramAsItWasRun(t *testing.T) {
	assert.Equal(t, "labsim", invokedAs("labsim"))
	assert.Equal(t, "./bin/labsim", invokedAs("./bin/labsim"))
	assert.Empty(t, invokedAs("/tmp/go-build2921/b001/exe/labsim"), "go run's binary is gone when it ends")

	e := fakeEnv()
	assert.Equal(t, "go run ./cmd/labsim", e.replayCmd())
	e.invoked = "./labsim"
	assert.Equal(t, "./labsim", e.replayCmd())
	r := labsim(e, "sweep", "flaky", "-seeds", "2")
	assert.Contains(t, r.stdout, "replay: ./labsim sweep flaky -seed 1\n")
	assert.Contains(t, r.stdout, "flaky: 2 seeds (1 to 2), 1 failing")
	e.command = "go run ./examples/labext"
	assert.Equal(t, "go run ./examples/labext", e.replayCmd(), "a catalogue's own command wins")
}

func TestSweepPrintsTheVisualizationOnce(t *testing.T) {
	e := fakeEnv()
	e.scenarios = []sweep.Scenario{{Name: "drawn", Description: "a fake that fails with a drawing", Run: func(seed int64, _ string, _ io.Writer) sweep.Outcome {
		return sweep.Outcome{Seed: seed, Problem: "not linearizable; visualization: /d/drawn.html", HTML: "/d/drawn.html"}
	}}}
	r := labsim(e, "sweep", "drawn", "-seeds", "1")
	assert.Contains(t, r.stdout, "seed 1: FAIL: not linearizable\n  replay: go run ./cmd/labsim sweep drawn -seed 1\n  porcupine: /d/drawn.html\n")
}

func TestNullIsNotATerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(null), os.DevNull)
	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a file")
}

// TestCommandDocHasEveryUsage checks that cmd/labsim's package doc shows
// every command's usage lines as its help does.
func TestCommandDocHasEveryUsage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "cmd", "labsim", "main.go"))
	require.NoError(t, err)
	for _, c := range commands() {
		for _, line := range strings.Split(c.usageLine(), "\n") {
			assert.Contains(t, string(doc), "//\t"+strings.TrimSpace(line)+"\n", "cmd/labsim's doc, command %s", c.name)
		}
	}
}

// TestSweepSeedEdges runs sweeps at the edges of what -first, -seeds and
// -shard allow.
func TestSweepSeedEdges(t *testing.T) {
	for _, args := range [][]string{
		{"-first", "9223372036854775799", "-seeds", "9"}, // the last seed is the largest there is
		{"-seeds", "2", "-shard", "1/2"},                 // the last shard with a seed
		{"-seeds", "2", "-shard", "0/2"},
		{"-seeds", "2", "-shard", "3/4"}, // more shards than seeds: this one runs none
	} {
		r := labsim(nil, append([]string{"sweep", "steady", "-out", t.TempDir()}, args...)...)
		assert.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
	}
}

func TestKitIntoAnEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	r := labsim(nil, "kit", "raft", "-out", dir)
	assert.Equal(t, exitOK, r.code, r.stderr)
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	assert.NoError(t, err)
}

// TestSweepSaysWhatTheSeedsDrew checks that a swarm's sweep ends with
// the spread of the configurations its seeds drew, the merge of its
// results file too, and that a replay prints the seed's configuration.
func TestSweepSaysWhatTheSeedsDrew(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "r.jsonl")
	r := labsim(realEnv(), "sweep", "swarm-kv", "-seeds", "3", "-json", results, "-out", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "configurations drawn:\n")
	assert.Regexp(t, `\n  servers: \d / \d / \d \(min / median / max, 3 seeds\)\n`, r.stdout)
	m := labsim(realEnv(), "merge", results)
	require.Equal(t, exitOK, m.code, m.stderr)
	spread, _, _ := strings.Cut(r.stdout[strings.Index(r.stdout, "configurations drawn:"):], "results:")
	assert.Contains(t, m.stdout, spread, "the merge's spread is the sweep's")

	one := labsim(realEnv(), "sweep", "swarm-kv", "-seed", "2", "-out", dir)
	require.Equal(t, exitOK, one.code, one.stderr)
	assert.Regexp(t, `configuration drawn:\n  servers: \d\n  lease reads: (true|false)\n`, one.stdout)
}

// TestSweepSeedOfANodesPanic checks that replaying one seed whose run
// panics fails that seed with the panic and where it was raised, as a
// sweep of many seeds does, instead of crashing labsim.
func TestSweepSeedOfANodesPanic(t *testing.T) {
	e := fakeEnv()
	e.scenarios = append(e.scenarios, sweep.Scenario{Name: "panicky", Description: "a fake whose node panics", Run: func(int64, string, io.Writer) sweep.Outcome {
		panic("node exploded")
	}})
	r := labsim(e, "sweep", "panicky", "-seed", "3")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "labsim sweep: seed 3: FAIL: panic: node exploded\n")
	assert.Contains(t, r.stderr, "TestSweepSeedOfANodesPanic", "with the stack where it was raised")
}
