package simtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

// TestGradeRecord runs, in a child process (one of them fails), a graded
// test that passes and one that fails on seed 6, over SIM_SEED=5,6, and
// reads what they recorded in SIM_GRADE_RECORD's file.
func TestGradeRecord(t *testing.T) {
	if os.Getenv("SIMTEST_CHILD") == "record" {
		for _, failOn := range []int64{0, 6} {
			name := map[int64]string{0: "passes", 6: "fails"}[failOn]
			t.Run(name, func(t *testing.T) {
				RunGraded(t, t.Name(), "1A", 2, []int64{1}, func(t *testing.T, seed int64) Result {
					if seed == failOn {
						t.Errorf("seed %d fails", seed)
					}
					return Result{World: sim.NewWorld(seed)}
				})
			})
		}
		return
	}
	file := filepath.Join(t.TempDir(), "record")
	cmd := exec.Command(os.Args[0], "-test.run=^TestGradeRecord$", "-test.v")
	cmd.Env = append(os.Environ(), "SIMTEST_CHILD=record", "SIM_SEED=5,6", "SIM_SEEDS=", "SIM_TRACE=", GradeRecordEnv+"="+file)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child passed:\n%s", out)
	assert.Contains(t, string(out), "--- PASS: TestGradeRecord/passes/replay=5 ")
	b, err := os.ReadFile(file)
	require.NoError(t, err, "the child's output:\n%s", out)
	var recs []GradeRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var r GradeRecord
		require.NoError(t, dec.Decode(&r))
		recs = append(recs, r)
	}
	assert.Equal(t, []GradeRecord{
		{Test: "TestGradeRecord/passes", Part: "1A", Points: 2, Seeds: []int64{5, 6}, Replayed: true, Passed: true},
		{Test: "TestGradeRecord/fails", Part: "1A", Points: 2, Seeds: []int64{5, 6}, Failed: []int64{6}},
	}, recs)
	assert.Equal(t, 2, bytes.Count(b, []byte("\n")), "a line each")
}
