package labsim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withEnv returns fakeEnv with the environment variables in vars ("NAME=value").
func withEnv(vars ...string) *env {
	e := fakeEnv()
	m := map[string]string{}
	for _, v := range vars {
		name, value, _ := strings.Cut(v, "=")
		m[name] = value
	}
	e.getenv = func(name string) string { return m[name] }
	return e
}

// TestShardAutoReadsEachEngine checks that -shard auto takes its shard from
// a Kubernetes Indexed Job, a GitHub Actions matrix and a Slurm array.
func TestShardAutoReadsEachEngine(t *testing.T) {
	for _, tc := range []struct {
		flag string
		env  []string
		want string // i/n, from
	}{
		{"auto/8", []string{"JOB_COMPLETION_INDEX=0"}, "0/8 kubernetes"},
		{"auto/8", []string{"JOB_COMPLETION_INDEX=7"}, "7/8 kubernetes"},
		{"auto", []string{"STRATEGY_JOB_INDEX=2", "STRATEGY_JOB_TOTAL=5", "GITHUB_ACTIONS=true"}, "2/5 github-actions"},
		{"auto/5", []string{"STRATEGY_JOB_INDEX=4", "STRATEGY_JOB_TOTAL=5"}, "4/5 github-actions"},
		{"auto", []string{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=16", "SLURM_ARRAY_TASK_COUNT=16"}, "0/16 slurm"},
		{"auto", []string{"SLURM_ARRAY_TASK_ID=16", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=16", "SLURM_ARRAY_TASK_COUNT=16", "SLURM_ARRAY_TASK_STEP=1"}, "15/16 slurm"},
		{"auto/4", []string{"SLURM_ARRAY_TASK_ID=6", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=6", "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_STEP=2"}, "3/4 slurm"},
		{"auto", []string{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=4"}, "3/4 slurm"}, // no MAX or STEP
		{"2/3", []string{"JOB_COMPLETION_INDEX=7"}, "2/3 "},                                                            // given: the environment is not read
	} {
		sh := &shard{}
		require.NoError(t, sh.Set(tc.flag))
		require.NoError(t, sh.resolve(withEnv(tc.env...)), "%s %v", tc.flag, tc.env)
		assert.Equal(t, tc.want, fmt.Sprintf("%d/%d %s", sh.i, sh.n, sh.from), "%s %v", tc.flag, tc.env)
	}
}

// TestShardAutoRefusesGarbage checks that -shard auto refuses no engine,
// two engines, and every bad value, naming the variable and its value.
func TestShardAutoRefusesGarbage(t *testing.T) {
	slurm := func(id, lo, hi, count, step string) []string {
		return []string{"SLURM_ARRAY_TASK_ID=" + id, "SLURM_ARRAY_TASK_MIN=" + lo, "SLURM_ARRAY_TASK_MAX=" + hi, "SLURM_ARRAY_TASK_COUNT=" + count, "SLURM_ARRAY_TASK_STEP=" + step}
	}
	for _, tc := range []struct {
		flag string
		env  []string
		err  string
	}{
		{"auto", nil, "-shard auto: no engine's shard is in the environment (JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, STRATEGY_JOB_INDEX and STRATEGY_JOB_TOTAL of a GitHub Actions matrix, SLURM_ARRAY_TASK_ID of a Slurm array); give -shard i/n"},
		{"auto", []string{"GITHUB_ACTIONS=true"}, "-shard auto: on GitHub Actions, set STRATEGY_JOB_INDEX: ${{ strategy.job-index }} and STRATEGY_JOB_TOTAL: ${{ strategy.job-total }} in the step's env"},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=1", "SLURM_ARRAY_TASK_ID=1"}, "-shard auto/4: JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID are set, of more than one engine: give -shard i/n"},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=1", "STRATEGY_JOB_TOTAL=4"}, "JOB_COMPLETION_INDEX and STRATEGY_JOB_INDEX are set"},

		{"auto", []string{"JOB_COMPLETION_INDEX=3"}, "-shard auto: JOB_COMPLETION_INDEX=3 (a Kubernetes Indexed Job) gives the index, not the count: give -shard auto/N, N the Job's completions"},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=4"}, "-shard auto/4: JOB_COMPLETION_INDEX=4 is not below the 4 shards: the Job's completions and N in auto/N must agree"},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=x"}, `-shard auto/4: JOB_COMPLETION_INDEX="x" is not a whole number`},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=-1"}, "-shard auto/4: JOB_COMPLETION_INDEX=-1 is negative"},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=+1"}, `JOB_COMPLETION_INDEX="+1" is not a whole number`},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=1.0"}, `JOB_COMPLETION_INDEX="1.0" is not a whole number`},
		{"auto/4", []string{"JOB_COMPLETION_INDEX=99999999999999999999"}, `JOB_COMPLETION_INDEX="99999999999999999999" is not a whole number`},

		{"auto", []string{"STRATEGY_JOB_INDEX=1"}, "-shard auto: STRATEGY_JOB_TOTAL is not set"},
		{"auto", []string{"STRATEGY_JOB_TOTAL=3"}, "-shard auto: STRATEGY_JOB_INDEX is not set"},
		{"auto", []string{"STRATEGY_JOB_INDEX=3", "STRATEGY_JOB_TOTAL=3"}, "-shard auto: STRATEGY_JOB_INDEX=3 is not below STRATEGY_JOB_TOTAL=3"},
		{"auto", []string{"STRATEGY_JOB_INDEX=0", "STRATEGY_JOB_TOTAL=0"}, "STRATEGY_JOB_TOTAL=0: a matrix has at least one job"},
		{"auto", []string{"STRATEGY_JOB_INDEX=${{ strategy.job-index }}", "STRATEGY_JOB_TOTAL=3"}, `STRATEGY_JOB_INDEX="${{ strategy.job-index }}" is not a whole number`},
		{"auto/4", []string{"STRATEGY_JOB_INDEX=1", "STRATEGY_JOB_TOTAL=3"}, "-shard auto/4: STRATEGY_JOB_TOTAL=3 shards, not 4"},

		{"auto", []string{"SLURM_ARRAY_TASK_ID=3"}, "-shard auto: SLURM_ARRAY_TASK_COUNT is not set"},
		{"auto", slurm("3", "0", "3", "4", "0"), "SLURM_ARRAY_TASK_STEP=0: want a step of at least 1"},
		{"auto", slurm("3", "0", "9", "3", "1"), "the array's tasks 0 to 9 by 1 are not SLURM_ARRAY_TASK_COUNT=3 tasks: give the array as a range (--array=0-2), or -shard i/n"},
		{"auto", slurm("4", "1", "9", "3", "4"), "SLURM_ARRAY_TASK_ID=4 is not one of the 3 tasks from SLURM_ARRAY_TASK_MIN=1 by 4"},
		{"auto", slurm("0", "1", "4", "4", "1"), "SLURM_ARRAY_TASK_ID=0 is not one of the 4 tasks"},
		{"auto", slurm("3", "0", "3", "0", "1"), "SLURM_ARRAY_TASK_COUNT=0: an array has at least one task"},
		{"auto", slurm("3", "0", "x", "4", "1"), `SLURM_ARRAY_TASK_MAX="x" is not a whole number`},
		{"auto/2", slurm("3", "0", "3", "4", "1"), "-shard auto/2: SLURM_ARRAY_TASK_COUNT=4 shards, not 2"},
	} {
		r := labsim(withEnv(tc.env...), "sweep", "steady", "-shard", tc.flag)
		assert.Equal(t, exitUsage, r.code, "%s %v", tc.flag, tc.env)
		assertOneError(t, r, tc.err)
	}
}

// TestShardAutoRuns runs a shard that -shard auto found, and one with no
// seeds (more shards than seeds), which passes.
func TestShardAutoRuns(t *testing.T) {
	r := labsim(withEnv("JOB_COMPLETION_INDEX=1"), "sweep", "steady", "-seeds", "5", "-shard", "auto/2", "-out", t.TempDir())
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "steady: 2 seeds (shard 1/2 of 1 to 5, from -shard auto on kubernetes), 0 failing")
	r = labsim(withEnv("STRATEGY_JOB_INDEX=6", "STRATEGY_JOB_TOTAL=8"), "sweep", "steady", "-seeds", "5", "-shard", "auto", "-out", t.TempDir())
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "steady: 0 seeds (shard 6/8 of 1 to 5, from -shard auto on github-actions), 0 failing")
}
