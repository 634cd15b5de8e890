package labsim

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/sweep"
)

// readFile reads and checks a results file.
func readFile(t *testing.T, path string) *sweep.Results {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := sweep.ReadResults(path, f)
	require.NoError(t, err)
	return r
}

// TestSweepWritesResults checks the results file of a sweep's shard: a line
// for each of its seeds, failing or not, with the replay command, then the
// summary; and that merge puts two shards together.
func TestSweepWritesResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results") + "/"
	r := labsim(nil, "sweep", "flaky", "-seeds", "5", "-shard", "0/2", "-json", dir, "-out", t.TempDir())
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.Contains(t, r.stdout, "results: "+filepath.Join(dir, "flaky.0-of-2.jsonl"))
	res := readFile(t, filepath.Join(dir, "flaky.0-of-2.jsonl"))
	require.Len(t, res.Seeds, 3)
	s3 := res.Seeds[1]
	assert.Equal(t, sweep.SeedRecord{Format: 1, Kind: "seed", Scenario: "flaky", Seed: 3, Verdict: "fail", Problem: "odd seed",
		Trace: "0000000000000000", Replay: "go run ./cmd/labsim sweep flaky -seed 3", WallSeconds: s3.WallSeconds}, s3)
	assert.Equal(t, []int64{1, 3, 5}, res.Summary.Failing)
	assert.Equal(t, 2, res.Summary.Shards)

	r = labsim(nil, "sweep", "flaky", "-seeds", "5", "-shard", "1/2", "-json", dir, "-out", t.TempDir())
	assert.Equal(t, exitOK, r.code, r.stderr)
	merged := filepath.Join(t.TempDir(), "all.jsonl")
	r = labsim(nil, "merge", dir, "-json", merged)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stdout, "seed 5: FAIL: odd seed\n  replay: go run ./cmd/labsim sweep flaky -seed 5\n")
	assert.Contains(t, r.stdout, "flaky: 5 seeds (1 to 5, 2 shards), 3 failing\n")
	assert.Contains(t, r.stdout, "verdict: FAIL: 3 of 5 seeds failed\n")
	assert.Equal(t, "labsim merge: 3 of 5 seeds failed\n", r.stderr)
	all := readFile(t, merged)
	assert.Len(t, all.Seeds, 5)
	assert.Equal(t, sweep.ShardFromMerge, all.Summary.ShardFrom)
}

// startShard starts labsim as a process of its own (the test binary, see
// TestMain) in dir, with the engine variables in vars and none from the
// test's own environment.
func startShard(t *testing.T, dir string, vars []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	for _, v := range os.Environ() {
		name, _, _ := strings.Cut(v, "=")
		if !strings.HasPrefix(name, "SLURM_") && !strings.HasPrefix(name, "STRATEGY_") && name != envK8sIndex && name != envGitHub {
			cmd.Env = append(cmd.Env, v)
		}
	}
	cmd.Env = append(append(cmd.Env, "LABSIM_AS_MAIN=1"), vars...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	return cmd, &out
}

// TestShardedSweepEqualsOneRun runs the whole flow on one machine: a sweep
// of a planted bug that fails most seeds, as 8 shards in 8 processes that
// take their shard from a Kubernetes Indexed Job's variable, merged; the
// merged results equal those of one unsharded run of the same seeds, seed
// by seed (verdict, problem, trace hash, replay line), but for wall times.
func TestShardedSweepEqualsOneRun(t *testing.T) {
	const seeds = 10 // a shard of one or two seeds each, failing and passing ones both
	dir := t.TempDir()
	t.Chdir(dir) // the porcupine files' paths, in the results, are relative to it in both runs
	args := []string{"sweep", "kv-linearizability", "-plant", "vote granted without the log-up-to-date check", "-seeds", strconv.Itoa(seeds), "-parallel", "1", "-out", "html"}
	var shards []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 8 {
		cmd, out := startShard(t, dir, []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}, append(args, "-shard", "auto/8", "-json", "shards/")...)
		shards, outs = append(shards, cmd), append(outs, out)
	}
	one := labsim(realEnv(), append(args, "-json", "one.jsonl")...)
	require.Equal(t, exitFailed, one.code, one.stderr)
	for i, cmd := range shards {
		err := cmd.Wait()
		if err != nil {
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "shard %d: %s", i, outs[i])
			require.Equal(t, exitFailed, exit.ExitCode(), "shard %d: %s", i, outs[i])
		}
		assert.Contains(t, outs[i].String(), "from -shard auto on kubernetes", "shard %d", i)
	}
	merged := labsim(realEnv(), "merge", "shards", "-json", "merged.jsonl")
	require.Equal(t, exitFailed, merged.code, merged.stderr)

	unsharded, together := readFile(t, "one.jsonl"), readFile(t, "merged.jsonl")
	require.Len(t, together.Seeds, seeds)
	failing := 0
	for k := range unsharded.Seeds {
		a, b := unsharded.Seeds[k], together.Seeds[k]
		head := problemHead(a.Problem)
		a.WallSeconds, b.WallSeconds = 0, 0
		assert.Equal(t, a, b, "seed %d: the same record, its problem too", a.Seed)
		if !a.OK() {
			failing++
			assert.Contains(t, merged.stdout, "seed "+strconv.FormatInt(a.Seed, 10)+": FAIL: "+head)
			if a.File == "" { // a seed that stalled has no history to draw
				assert.Contains(t, merged.stdout, "\n  replay: "+a.Replay+"\n")
				continue
			}
			assert.Contains(t, merged.stdout, "\n  replay: "+a.Replay+"\n  porcupine: "+a.File+" (where the shard of shards/")
		}
	}
	assert.Greater(t, failing, seeds/2, "the planted bug fails most seeds")
	assert.Less(t, failing, seeds, "but not all: both verdicts are compared")
	assert.Equal(t, unsharded.Summary.Failing, together.Summary.Failing)
	assert.Equal(t, unsharded.Summary.Ran, together.Summary.Ran)
	assert.Contains(t, merged.stdout, "verdict: FAIL: "+strconv.Itoa(failing)+" of "+strconv.Itoa(seeds)+" seeds failed\n")
}

// problemHead is a problem up to the key it names: "history of 1 333
// operations is not linearizable".
func problemHead(p string) string {
	head, _, _ := strings.Cut(p, ": key ")
	return head
}
