package labsim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/experiments"
	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/sim/simtest"
)

// TestMain runs the tests, or, with LABSIM_AS_MAIN=1 in the environment,
// labsim itself over the lab's catalogue: tests start it as a process of
// its own, as a shard of a sweep on a machine of its own would be.
func TestMain(m *testing.M) {
	if os.Getenv("LABSIM_AS_MAIN") == "1" {
		os.Exit(Run(os.Args[1:], Lab(), os.Stdin, os.Stdout, os.Stderr))
	}
	simtest.Main(m)
}

// A result is what a labsim command line did.
type result struct {
	code           int
	stdout, stderr string
}

// labsim runs the command line args in e (fakeEnv if nil) as main would.
func labsim(e *env, args ...string) result {
	if e == nil {
		e = fakeEnv()
	}
	var out, errOut bytes.Buffer
	e.stdout, e.stderr = &out, &errOut
	code := run(args, e)
	return result{code, out.String(), errOut.String()}
}

// realEnv has the lab's real catalogues, and shows progress at once, as
// plain lines.
func realEnv() *env {
	return &env{experiments: experiments.All(), scenarios: sweep.Scenarios(), getenv: noEnv}
}

// noEnv is an empty environment: the tests' own (a CI's, say) must not
// reach -shard auto.
func noEnv(string) string { return "" }

// fakeEnv has a catalogue of small fakes: an experiment that works and one
// that fails, a scenario that passes and one that fails on odd seeds.
func fakeEnv() *env {
	table := plots.NewTable("x", "y")
	table.Add(1, 2)
	return &env{
		getenv: noEnv,
		experiments: []experiments.Experiment{
			{Name: "tiny", Reproduces: "nothing", Description: "a fake that writes a table", Seed: 3, Full: "writes the same table",
				Run: func(p experiments.Params) (*experiments.Result, error) {
					return &experiments.Result{Table: table, Notes: []string{fmt.Sprintf("ran seed %d, full %t", p.Seed, p.Full)}}, nil
				}},
			{Name: "broken", Reproduces: "nothing", Description: "a fake that fails", Seed: 1,
				Run: func(experiments.Params) (*experiments.Result, error) { return nil, errors.New("broken on purpose") }},
		},
		scenarios: []sweep.Scenario{
			{Name: "steady", Description: "a fake that passes", Run: func(seed int64, _ string, _ io.Writer) sweep.Outcome {
				return sweep.Outcome{Seed: seed}
			}},
			{Name: "flaky", Description: "a fake that fails on odd seeds", Run: func(seed int64, _ string, _ io.Writer) sweep.Outcome {
				o := sweep.Outcome{Seed: seed}
				if seed%2 != 0 {
					o.Problem = "odd seed"
				}
				return o
			}},
		},
	}
}

// TestEveryCommand checks, for every command, that -h and 'help CMD' print
// its usage and exit 0, and that a bad flag and an extra argument are
// refused with one error and exit 2.
func TestEveryCommand(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			h := labsim(nil, c.name, "-h")
			assert.Equal(t, exitOK, h.code)
			assert.Contains(t, h.stdout, "usage: labsim "+c.name+" ")
			assert.Contains(t, h.stdout, "flags:\n  -")
			assert.Empty(t, h.stderr)
			assert.Equal(t, h, labsim(nil, "help", c.name), "'help %s' is '%s -h'", c.name, c.name)

			var name []string // the argument the command needs
			if c.arg != "" {
				name = []string{map[string]string{"experiment": "tiny", "scenario": "steady", "kit": "raft"}[c.arg]}
			}
			bad := labsim(nil, append([]string{c.name, "-nope"}, name...)...)
			assert.Equal(t, exitUsage, bad.code)
			assertOneError(t, bad, "labsim "+c.name+": flag provided but not defined: -nope")

			if c.flagsMany != nil {
				return // takes more arguments
			}
			extra := labsim(nil, append(append([]string{c.name}, name...), "extra")...)
			assert.Equal(t, exitUsage, extra.code)
			assertOneError(t, extra, `unexpected argument "extra"`)
		})
	}
}

// assertOneError checks that r printed nothing on stdout, and on stderr
// msg once and a line on where to find the usage.
func assertOneError(t *testing.T, r result, msg string) {
	t.Helper()
	assert.Empty(t, r.stdout)
	assert.Equal(t, 1, strings.Count(r.stderr, msg), "stderr: %s", r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if assert.Len(t, lines, 2, r.stderr) {
		assert.Regexp(t, `^run 'labsim help( \w+)?' for usage$`, lines[1])
	}
}

// TestBadValues checks that every bad value is refused before anything
// runs, with exit status 2 and one line that names it.
func TestBadValues(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	dir := t.TempDir()
	t.Chdir(dir) // where the default -out directories would go
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"frobnicate"}, `labsim: unknown command "frobnicate"`},
		{[]string{"lsit"}, `unknown command "lsit"; did you mean list?`},
		{[]string{"-seed", "3", "demo"}, "flag -seed before the command"},
		{[]string{"help", "nope"}, `unknown help topic "nope"`},
		{[]string{"help", "run", "extra"}, `unexpected argument "extra"`},
		{[]string{"demo", "-seeds", "3"}, "not defined: -seeds; did you mean -seed?"},

		{[]string{"run"}, "which experiment? ('labsim list' shows them)"},
		{[]string{"run", "fig99"}, `unknown experiment "fig99"`},
		{[]string{"run", "all"}, "'labsim figures' runs all the experiments"},
		{[]string{"run", "tin"}, `unknown experiment "tin"; did you mean tiny?`},
		{[]string{"run", "tiny", "-out", file}, "-out " + file + ": " + file + " is not a directory"},
		{[]string{"run", "tiny", "-out", filepath.Join(file, "sub")}, "is not a directory"},
		{[]string{"run", "tiny", "-seed", "x"}, `invalid value "x" for flag -seed: not an integer`},

		{[]string{"figures", "-parallel", "0"}, `invalid value "0" for flag -parallel: out of range: want 1 to 256`},
		{[]string{"figures", "-parallel", "257"}, `invalid value "257" for flag -parallel`},

		{[]string{"sweep"}, "which scenario?"},
		{[]string{"sweep", "nope"}, `unknown scenario "nope"`},
		{[]string{"sweep", "steady", "-parallel", "0"}, `invalid value "0" for flag -parallel: out of range: want 1 to 256`},
		{[]string{"sweep", "steady", "-seeds", "0"}, `invalid value "0" for flag -seeds: out of range: want 1 to 1000000`},
		{[]string{"sweep", "steady", "-seeds", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -seeds`},
		{[]string{"sweep", "steady", "-first", "9223372036854775807"}, "-first 9223372036854775807 with -seeds 100: the last seed would pass the largest"},
		{[]string{"sweep", "steady", "-first", "9223372036854775800", "-seeds", "9"}, "-first 9223372036854775800 with -seeds 9"},
		{[]string{"sweep", "steady", "-shard", "3/2"}, `invalid value "3/2" for flag -shard: want i/n with 0 <= i < n`},
		{[]string{"sweep", "steady", "-shard", "2/2"}, `invalid value "2/2" for flag -shard: want i/n with 0 <= i < n`},
		{[]string{"sweep", "steady", "-shard", "-1/2"}, `invalid value "-1/2" for flag -shard: want i/n with 0 <= i < n`},
		{[]string{"sweep", "steady", "-shard", "x"}, `invalid value "x" for flag -shard: not of the form i/n`},
		{[]string{"sweep", "steady", "-shard", "auto"}, "-shard auto: no engine's shard is in the environment"},
		{[]string{"sweep", "steady", "-shard", "auto/0"}, `invalid value "auto/0" for flag -shard: want auto, or auto/N with N the number of shards, at least 1`},
		{[]string{"sweep", "steady", "-shard", "auto8"}, `invalid value "auto8" for flag -shard`},
		{[]string{"sweep", "steady", "-seed", "5", "-json", "r.jsonl"}, "-json does not go with -seed"},
		{[]string{"sweep", "steady", "-json", "/no/such/dir/r.jsonl"}, "-json /no/such/dir/r.jsonl: cannot write /no/such/dir/r.jsonl: no such file or directory"},
		{[]string{"sweep", "steady", "-json", file + "/"}, "-json " + file + "/: cannot write " + file + "/steady.jsonl: not a directory"},
		{[]string{"sweep", "steady", "-json", "/no/such/dir/"}, "-json /no/such/dir/: its parent /no/such does not exist (labsim makes the last directory only)"},

		{[]string{"merge"}, "which results file? name the shards' files"},
		{[]string{"merge", "/no/such.jsonl"}, "/no/such.jsonl: no such file or directory"},
		{[]string{"merge", file}, file + ": no summary line after 0 seed lines"},
		{[]string{"merge", t.TempDir()}, "a directory without results files (*.jsonl) in it"},
		{[]string{"sweep", "steady", "-trace", "t"}, "-trace goes with -seed"},
		{[]string{"sweep", "steady", "-seed", "5", "-seeds", "10"}, "-seeds does not go with -seed"},
		{[]string{"sweep", "steady", "-seed", "5", "-parallel", "2"}, "-parallel does not go with -seed"},
		{[]string{"sweep", "steady", "-out", file}, "-out " + file},
		{[]string{"sweep", "steady", "-seed", "5", "-out", file}, "-out " + file},

		{[]string{"demo", "-hosts", "0"}, `invalid value "0" for flag -hosts: out of range: want 1 to 100`},
		{[]string{"demo", "-hosts", "3000"}, `invalid value "3000" for flag -hosts: out of range: want 1 to 100`},
		{[]string{"demo", "-duration", "-1s"}, `invalid value "-1s" for flag -duration: out of range: want more than 0s and at most 1h`},
		{[]string{"demo", "-duration", "2000000h"}, `invalid value "2000000h" for flag -duration: out of range`},
		{[]string{"demo", "-duration", "5"}, `invalid value "5" for flag -duration: not a duration such as 30s`},
		{[]string{"demo", "-seed", "x"}, `invalid value "x" for flag -seed`},
		{[]string{"demo", "-hosts"}, "flag needs an argument: -hosts"},
		{[]string{"demo", "-trace", "/no/such/dir/trace"}, "-trace /no/such/dir/trace: open /no/such/dir/trace"},

		{[]string{"kit"}, "which kit? (kvraft or raft)"},
		{[]string{"kit", "raf"}, `unknown kit "raf"; did you mean raft? (kvraft or raft)`},
		{[]string{"kit", "raft", "-module", "a b"}, `-module "a b": module path "a b" has the character ' '`},
		{[]string{"kit", "raft", "-module", "a//b"}, `-module "a//b": module path "a//b" has an empty, . or .. element`},
		{[]string{"kit", "raft", "-out", file}, "-out " + file + ": " + file + " is not a directory"},
		{[]string{"kit", "raft", "-out", filepath.Dir(file)}, "-out " + filepath.Dir(file) + ": not empty"},

		{[]string{"grade", "-in", "/no/such/file"}, "-in /no/such/file: no such file or directory"},
		{[]string{"grade", "-json", "/no/such/dir/sheet.json"}, "-json /no/such/dir/sheet.json: cannot write it: no such file or directory"},
		{[]string{"grade", "-json", dir}, "-json " + dir + ": cannot write it: is a directory"},
		{[]string{"grade", "-lab", "raf"}, `-lab "raf": unknown lab; did you mean raft? (kvraft or raft)`},
	} {
		r := labsim(nil, tc.args...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		assertOneError(t, r, tc.err)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a refused command writes nothing")
}

// TestFailuresExitOne checks that a run that fails or finds failures
// exits with status 1 and says so once.
func TestFailuresExitOne(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args   []string
		err    string
		stdout string
	}{
		{[]string{"sweep", "flaky", "-seeds", "4", "-out", dir}, "labsim sweep: 2 of 4 seeds failed",
			"seed 3: FAIL: odd seed\n  replay: go run ./cmd/labsim sweep flaky -seed 3\n"},
		{[]string{"sweep", "flaky", "-seed", "7", "-out", dir}, "labsim sweep: seed 7: FAIL: odd seed", "flaky seed 7:"},
		{[]string{"run", "broken", "-out", dir}, "labsim run: broken (seed 1): broken on purpose", ""},
		{[]string{"figures", "-out", dir}, "labsim figures: 1 of 2 experiments failed (broken); no index written",
			"broken           FAIL: broken (seed 1): broken on purpose"},
	} {
		r := labsim(nil, tc.args...)
		assert.Equal(t, exitFailed, r.code, "%v: %s", tc.args, r.stderr)
		assert.Equal(t, 1, strings.Count(r.stderr, tc.err), "%v: %s", tc.args, r.stderr)
		assert.NotContains(t, r.stderr, "for usage")
		assert.Contains(t, r.stdout, tc.stdout)
	}
	_, err := os.Stat(filepath.Join(dir, "index.md"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestHelp checks the general help and the help on an experiment and a
// scenario.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "help"}} {
		r := labsim(nil, args...)
		assert.Equal(t, exitOK, r.code)
		assert.Contains(t, r.stdout, "usage: labsim COMMAND")
		for _, c := range commands() {
			assert.Contains(t, r.stdout, "\n  "+c.name+" ")
		}
		assert.Contains(t, r.stdout, "exit status: 0 all went well, 1 a run failed or found failures, 2 the\ncommand line was refused")
	}
	none := labsim(nil)
	assert.Equal(t, exitUsage, none.code)
	assert.Contains(t, none.stderr, "usage: labsim COMMAND")

	r := labsim(realEnv(), "help", "live-nodes")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "reproduces: Raft-KV-with-ChaosMonkey paper, Fig. 9")
	assert.Contains(t, r.stdout, "run: labsim run live-nodes")
	r = labsim(realEnv(), "help", "kv-lease")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "replay a seed: labsim sweep kv-lease -seed N")
	assert.Contains(t, labsim(nil, "help", "demo").stdout, "Demo is a ping counter, not Raft")
}

// TestFitsWidth checks that list, list -v and every help fit 100 columns
// with the real catalogues.
func TestFitsWidth(t *testing.T) {
	runs := [][]string{{"list"}, {"list", "-v"}, {"help"}}
	for _, c := range commands() {
		runs = append(runs, []string{"help", c.name})
	}
	for _, x := range experiments.All() {
		runs = append(runs, []string{"help", x.Name})
	}
	for _, args := range runs {
		r := labsim(realEnv(), args...)
		require.Equal(t, exitOK, r.code, "%v", args)
		for _, line := range strings.Split(r.stdout, "\n") {
			assert.LessOrEqual(t, len([]rune(line)), width, "%v: %q", args, line)
		}
	}
}
