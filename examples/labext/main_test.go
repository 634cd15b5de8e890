package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/labsim"
	"github.com/replab/replab/harness/sweep"
)

// labext runs the program's command line and returns its exit status,
// standard output and standard error.
func labext(c labsim.Catalogue, args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := labsim.Run(args, c, nil, &out, &errs)
	return code, out.String(), errs.String()
}

func TestOwnExperimentRunsWithTheLabsRunner(t *testing.T) {
	code, out, _ := labext(catalogue(), "list")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "ext-put-latency")
	assert.Contains(t, out, "ext-isolated-leader")
	assert.Contains(t, out, "concurrency", "the lab's own experiments are there too")

	dir := t.TempDir()
	code, out, errs := labext(catalogue(), "run", "ext-put-latency", "-out", dir)
	require.Equal(t, 0, code, errs)
	for _, ext := range []string{".csv", ".png", ".svg"} {
		assert.FileExists(t, filepath.Join(dir, "ext-put-latency"+ext))
	}
	assert.Contains(t, out, "ext-put-latency (seed 1, ")

	// figures over a catalogue of this program's experiment alone.
	own := catalogue()
	own.Experiments = own.Experiments[len(own.Experiments)-1:]
	code, _, errs = labext(own, "figures", "-out", dir)
	require.Equal(t, 0, code, errs)
	index, err := os.ReadFile(filepath.Join(dir, "index.md"))
	require.NoError(t, err)
	assert.Contains(t, string(index), "`go run ./examples/labext run ext-put-latency -seed 1 -out DIR`")
}

func TestOwnScenarioSweeps(t *testing.T) {
	code, out, errs := labext(catalogue(), "sweep", "ext-isolated-leader", "-seeds", "4", "-out", t.TempDir())
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "ext-isolated-leader: 4 seeds")
	assert.Contains(t, out, "0 failing")
}

// TestFailingSeedIsReplayedWithTheProgram checks that the runner reports
// a failing seed of a scenario from outside with this program's replay
// command, and exits with status 1.
func TestFailingSeedIsReplayedWithTheProgram(t *testing.T) {
	c := catalogue()
	s := &c.Scenarios[len(c.Scenarios)-1]
	run := s.Run
	s.Run = func(seed int64, dir string, trace io.Writer) sweep.Outcome {
		o := run(seed, dir, trace)
		if seed == 2 {
			o.Problem = "planted failure"
		}
		return o
	}
	code, out, _ := labext(c, "sweep", "ext-isolated-leader", "-seeds", "3", "-out", t.TempDir())
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "seed 2: FAIL: planted failure\n  replay: go run ./examples/labext sweep ext-isolated-leader -seed 2\n")
}

func TestCatalogueMistakesAreNamed(t *testing.T) {
	c := catalogue()
	c.Scenarios = append(c.Scenarios, c.Scenarios[len(c.Scenarios)-1])
	assert.PanicsWithValue(t, `labsim: scenario "ext-isolated-leader" has the name of another scenario`, func() { labext(c, "list") })
	c = catalogue()
	c.Experiments[0].Run = nil
	assert.PanicsWithValue(t, `labsim: experiment "all-minority" has no Run function`, func() { labext(c, "list") })
}
