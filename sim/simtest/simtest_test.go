package simtest

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

func TestReplayCommand(t *testing.T) {
	assert.Equal(t, "go test ./sim/simtest -run '^TestFigure8$' -seed 42 -v", ReplayCommand("TestFigure8/seed=42", 42))
	assert.Equal(t, "go test ./sim/simtest -run '^Test\\.Odd$' -seed -3 -v", ReplayCommand("Test.Odd", -3))
}

func TestSeeds(t *testing.T) {
	t.Setenv("SIM_SEED", "")
	assert.Equal(t, []int64{1, 2}, Seeds(t, 1, 2))
	t.Setenv("SIM_SEED", "77")
	assert.Equal(t, []int64{77}, Seeds(t, 1, 2))
}

func TestSameRunSaysNo(t *testing.T) {
	a := sim.Summary{Seed: 1, Now: time.Second, Events: 10, Hash: 5}
	require.NoError(t, sameRun(a, a))
	b := a
	b.Hash = 6
	err := sameRun(a, b)
	require.Error(t, err)
	first, causes, _ := strings.Cut(err.Error(), "\n")
	assert.Equal(t, "simtest: nondeterminism: seed 1 gave seed=1 virtual=1s events=10 trace=0000000000000005, then seed=1 virtual=1s events=10 trace=0000000000000006", first)
	for _, cause := range []string{"iterating over a map", "the wall clock", "a goroutine"} {
		assert.Contains(t, causes, cause)
	}
}

func TestRunChecksDeterminism(t *testing.T) {
	runs := 0
	Run(t, []int64{5, 6}, func(t *testing.T, seed int64) Result {
		runs++
		w := sim.NewWorld(seed)
		w.After(time.Duration(w.Rand().IntN(1000)), func() {})
		w.Run(time.Second)
		return Result{World: w}
	})
	assert.Equal(t, 3, runs, "two seeds, then the first one again")
}

// recorder is a T that records failures instead of stopping.
type recorder struct{ errors []string }

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) FailNow()            { r.errors = append(r.errors, "FailNow") }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestCheckDeclared(t *testing.T) {
	var r recorder
	CheckDeclared(&r, "simtest_test.go", []string{"TestSeeds", "TestCheckDeclared"})
	assert.Empty(t, r.errors)
	CheckDeclared(&r, "simtest_test.go", []string{"TestSeeds", "TestNoSuchThing"})
	assert.Equal(t, []string{"simtest_test.go declares no TestNoSuchThing"}, r.errors)
	r.errors = nil
	CheckDeclared(&r, "no_such_file.go", nil)
	require.Len(t, r.errors, 1)
	assert.Contains(t, r.errors[0], "simtest: open no_such_file.go: no such file or directory")
}

func TestSeedsFrom(t *testing.T) {
	for _, tc := range []struct {
		one, many string
		want      []int64
		err       string
	}{
		{"", "", []int64{4, 5}, ""},
		{"-3", "", []int64{-3}, ""},
		{"", "3", []int64{1, 2, 3}, ""},
		{"", "1", []int64{1}, ""},
		{"x", "", nil, `simtest: seed "x" is not an integer`},
		{"7,-2,9", "", []int64{7, -2, 9}, ""},
		{"7,,9", "", nil, `simtest: seed "" in "7,,9" is not an integer`},
		{"7,x", "", nil, `simtest: seed "x" in "7,x" is not an integer`},
		{"", "0", nil, `simtest: number of seeds "0" is not an integer from 1 to 1000000`},
		{"", "ten", nil, `simtest: number of seeds "ten" is not an integer from 1 to 1000000`},
		{"", "1000001", nil, `simtest: number of seeds "1000001" is not an integer from 1 to 1000000`},
		{"2", "3", nil, "simtest: a seed (2) and a number of seeds (3): give one"},
	} {
		got, err := seedsFrom(tc.one, tc.many, []int64{4, 5})
		if tc.err != "" {
			assert.EqualError(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
	most, err := seedsFrom("", "1000000", nil)
	require.NoError(t, err, "the largest number of seeds")
	assert.Len(t, most, maxSeeds)
}

// TestManySeedsGoOnPastFailures runs a test that fails on multiples of 3
// over -seeds 7 (as SIM_SEEDS), in a child process, since it must fail.
func TestManySeedsGoOnPastFailures(t *testing.T) {
	if os.Getenv("SIMTEST_CHILD") == "1" {
		Run(t, []int64{1}, func(t *testing.T, seed int64) Result {
			if seed%3 == 0 {
				t.Errorf("seed %d is a multiple of 3", seed)
			}
			return Result{World: sim.NewWorld(seed)}
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestManySeedsGoOnPastFailures$", "-test.v")
	cmd.Env = append(os.Environ(), "SIMTEST_CHILD=1", "SIM_SEEDS=7", "SIM_SEED=", "SIM_TRACE=")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child passed:\n%s", out)
	for seed := 1; seed <= 7; seed++ {
		result := "PASS"
		if seed%3 == 0 {
			result = "FAIL"
		}
		assert.Contains(t, string(out), fmt.Sprintf("--- %s: TestManySeedsGoOnPastFailures/seed=%d ", result, seed))
	}
	assert.Regexp(t, `2 of 7 seeds failed:
\s+seed 3: go test ./sim/simtest -run '\^TestManySeedsGoOnPastFailures\$' -seed 3 -v
\s+seed 6: go test ./sim/simtest -run '\^TestManySeedsGoOnPastFailures\$' -seed 6 -v
`, string(out))
	assert.NotContains(t, string(out), "replay=1", "no replay check after a failure")
}

func TestTrimStack(t *testing.T) {
	stack := []string{
		"lab/labrpc.check(...)", "\t/k/labrpc/call.go:10",
		"lab/raft.Make(...)", "\t/k/raft/raft.go:33 +0x1",
		"lab/raft_test.init.func1()", "\t/k/raft/lab_test.go:12 +0xcd",
		"lab/harness/cluster.New()", "\t/k/harness/cluster/cluster.go:159 +0x15",
		"testing.tRunner()", "\t/go/src/testing/testing.go:2036 +0xea",
	}
	assert.Equal(t, append(slices.Clone(stack[:6]), "... (the test harness, which called it)"), trimStack(stack, "/k/raft"),
		"from the panic, through the package's last frame")
	assert.Equal(t, stack, trimStack(stack, "/elsewhere"), "no frame of the package, and short: all of it")
	assert.Equal(t, stack[:4], trimStack(stack[:4], "/k/raft"), "nothing below the package's last frame")
	assert.Equal(t, append(slices.Clone(stack[:6]), "... (the test harness, which called it)"), trimStack(append(slices.Clone(stack), ""), "/k/raft"),
		"debug.Stack ends with a newline: an odd number of lines")

	var long []string
	for i := range 30 {
		long = append(long, fmt.Sprintf("f%d()", i), fmt.Sprintf("\t/x/f.go:%d", i))
	}
	assert.Equal(t, append(slices.Clone(long[:24]), "..."), trimStack(long, "/k/raft"), "a dozen frames")
}
