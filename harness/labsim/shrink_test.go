package labsim

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
)

// TestShrinkThenReplay shrinks a planted bug's failing seed, from the
// scenario and from its run file: the shrunk run's file holds the edits,
// fails with the original's kind, and replays to its trace hash; a seed
// that passes is refused.
func TestShrinkThenReplay(t *testing.T) {
	planted := []string{"kv-linearizability", "-plant", "no de-duplication: a retried write applies twice"}
	dir := t.TempDir()
	r := labsim(realEnv(), append(append([]string{"shrink"}, planted...), "-seed", "1", "-out", dir)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	file := filepath.Join(dir, "kv-linearizability-seed1-shrunk.run.json")
	assert.Contains(t, r.stdout, "shrinking kv-linearizability seed 1 (no de-duplication: a retried write applies twice)\n")
	assert.Regexp(t, `fails with \S+:\n  original: \d+ faults, [\d ]+ operations, 30s, 5 servers, 5 clients\n  shrunk:   `, r.stdout)
	assert.Contains(t, r.stdout, "wrote "+file+": ")
	f, err := runfile.Load(file)
	require.NoError(t, err)
	require.NotNil(t, f.Shrunk, "the file holds the edits")
	assert.Equal(t, "no de-duplication: a retried write applies twice", f.Plant)
	assert.NotEmpty(t, f.Verdict.Problem)

	again := labsim(realEnv(), "replay", file)
	require.Equal(t, exitOK, again.code, again.stderr)
	assert.Contains(t, again.stdout, "same trace (hash "+f.Summary.Hash)

	recorded := labsim(realEnv(), append(append([]string{"record"}, planted...), "-seed", "1", "-out", dir)...)
	require.Equal(t, exitFailed, recorded.code)
	from := labsim(realEnv(), "shrink", filepath.Join(dir, "kv-linearizability-seed1.run.json"), "-out", filepath.Join(dir, "from-file.run.json"))
	require.Equal(t, exitOK, from.code, from.stderr)
	g, err := runfile.Load(filepath.Join(dir, "from-file.run.json"))
	require.NoError(t, err)
	assert.Equal(t, f.Shrunk, g.Shrunk, "from the run file, the same shrink")

	pass := labsim(realEnv(), "shrink", "kv-linearizability", "-seed", "1", "-out", dir)
	assert.Equal(t, exitFailed, pass.code)
	assert.Contains(t, pass.stderr, "labsim shrink: kv-linearizability seed 1 passes: there is no failure to shrink\n")
}
