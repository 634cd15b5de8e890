package simtest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

// TestNewWorldRecordsWhenAsked checks that a world is recorded only when
// a record directory is set.
func TestNewWorldRecordsWhenAsked(t *testing.T) {
	t.Setenv("SIM_RECORD", "")
	assert.False(t, NewWorld(t, 1).Recording(), "no directory, no recording")
	t.Setenv("SIM_RECORD", t.TempDir())
	assert.True(t, NewWorld(t, 1).Recording())
}

// TestAFailedTestsRunFile checks the run file a failed test writes: named
// after the test and seed, it loads, and says which test failed.
func TestAFailedTestsRunFile(t *testing.T) {
	w := sim.NewWorld(3)
	rec := runfile.NewRecorder(w)
	w.SetRecorder(rec)
	h := w.NewHost("a")
	h.NewTimer(func() {}).Reset(time.Second)
	w.Run(2 * time.Second)
	dir := t.TempDir()
	path, err := writeFailed(dir, "TestX/one case", 3, rec.File())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "TestX_one_case.seed3.run.json"), path)
	f, err := runfile.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "test TestX/one case", f.Scenario)
	assert.Equal(t, int64(3), f.Seed)
	assert.Equal(t, "test", f.Verdict.Kind)
	assert.Equal(t, "the test TestX/one case failed on seed 3 (its log says why)", f.Verdict.Problem)
	assert.Equal(t, []string{"a"}, f.Hosts)
	require.Len(t, f.Events, 1)
	assert.Equal(t, sim.KindTimer, f.Events[0].Kind)
}
