package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range All() {
		assert.False(t, seen[e.Name], "duplicate name %s", e.Name)
		seen[e.Name] = true
		assert.NotEmpty(t, e.Reproduces, e.Name)
		assert.NotEmpty(t, e.Description, e.Name)
		assert.NotNil(t, e.Run, e.Name)
	}
	assert.Len(t, seen, 13)
	_, err := Lookup("fig99")
	assert.ErrorContains(t, err, `unknown experiment "fig99"; the experiments are: all-minority, concurrency,`)
}

// TestSameSeedSameFiles runs a small experiment twice and compares every
// file it writes, byte for byte.
func TestSameSeedSameFiles(t *testing.T) {
	t.Parallel()
	e, err := Lookup("election-cdf")
	require.NoError(t, err)
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		r, err := e.Run(Params{Seed: e.Seed})
		require.NoError(t, err)
		paths, err := r.Write(dir, e.Name)
		require.NoError(t, err)
		assert.Len(t, paths, 3, "a CSV, a PNG and an SVG")
	}
	files, err := os.ReadDir(dirs[0])
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		a, err := os.ReadFile(filepath.Join(dirs[0], f.Name()))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], f.Name()))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s differs between two runs of one seed", f.Name())
	}

	other, err := e.Run(Params{Seed: e.Seed + 1})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, other.Table.WriteCSV(&b))
	first, err := os.ReadFile(filepath.Join(dirs[0], e.Name+".csv"))
	require.NoError(t, err)
	assert.NotEqual(t, first, b.Bytes(), "another seed, other data")
}

// TestIsolateLeaderMeasuresReelection checks that isolate-leader's first
// Put follows the re-election, not a clerk's 1 s timer: every trial
// re-elects within the election timeout's bound and puts soon after.
func TestIsolateLeaderMeasuresReelection(t *testing.T) {
	t.Parallel()
	r, err := runIsolateLeader(Params{Seed: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"servers", "trial", "reelection_s", "first_put_s"}, r.Table.Columns)
	require.Len(t, r.Table.Rows, 5*trialsPerSize)
	for _, row := range r.Table.Rows {
		elected, err := strconv.ParseFloat(row[2], 64)
		require.NoError(t, err)
		put, err := strconv.ParseFloat(row[3], 64)
		require.NoError(t, err)
		assert.Less(t, elected, 1.1, "re-election within the 1 s election timeout and a round of votes: %v", row)
		assert.Less(t, put-elected, 0.3, "first Put soon after the election, not after a 1 s clerk timeout: %v", row)
	}
}

// TestPaperModeWaitsForTheHeartbeat checks the paper's Raft of put-latency
// and value-size: a Put waits for the next 400 ms heartbeat.
func TestPaperModeWaitsForTheHeartbeat(t *testing.T) {
	m := paperModes()[1]
	e, err := newEnv(1, 5, m.rc, network())
	require.NoError(t, err)
	require.NoError(t, e.settle(e.clerk()))
	pt := e.startPutters(1, 1)
	e.w.Run(4 * time.Second)
	pt.stop()
	st := plots.Summarize(millis(pt.latency))
	assert.InDelta(t, 400, st.Mean, 20, "a Put waits for the next heartbeat")
	assert.GreaterOrEqual(t, st.N, 9)
}

// TestKillingThatStillSends checks what live-nodes' caption says of a
// killed leader whose messages still arrive: its heartbeats hold the
// followers back, for a second under our Raft (until CheckQuorum makes it
// step down) and for ever under the paper's.
func TestKillingThatStillSends(t *testing.T) {
	for _, c := range []struct {
		rc      raft.Config
		elected bool
	}{{raft.PaperConfig(), true}, {paperRaft(), false}} {
		e, err := newEnv(1, 5, c.rc, network())
		require.NoError(t, err)
		_, ok := e.awaitLeader()
		require.True(t, ok)
		leader, _ := e.leader()
		require.NoError(t, deafen(e, leader))
		start := e.w.Now()
		ok = e.w.RunUntil(func() bool { _, ok := e.leader(); return ok }, 10*time.Second)
		assert.Equal(t, c.elected, ok, "PreVote %v, CheckQuorum %v", c.rc.PreVote, c.rc.CheckQuorum)
		if ok {
			assert.Greater(t, e.w.Now()-start, c.rc.ElectionMax, "held back until the deaf leader steps down")
		}
	}
}
