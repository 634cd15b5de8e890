package labsim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoRunFromTheBuildCache checks that a replay line never names a
// binary in Go's build cache, where go run keeps what it built since Go
// 1.24: it says go run ./cmd/labsim instead.
func TestGoRunFromTheBuildCache(t *testing.T) {
	arg0 := "/root/.cache/go-build/15/15dfdc0225f3095c6acfe30fa0a654f92ea1c6dfb6c99c0340ec4533511bda57-d/labsim"
	assert.Empty(t, invokedAs(arg0))
	assert.Equal(t, "go run ./cmd/labsim", (&env{invoked: invokedAs(arg0)}).replayCmd())
	assert.Equal(t, "/opt/15/labsim", invokedAs("/opt/15/labsim"), "a directory that only looks like the cache's")
}

// TestOutNeedsItsParent checks that -out makes its last directory only:
// a missing parent is refused, as -trace refuses one, and nothing is made.
func TestOutNeedsItsParent(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "no", "such", "out")
	for _, args := range [][]string{
		{"run", "tiny", "-out", dir},
		{"figures", "-out", dir},
		{"sweep", "steady", "-out", dir},
		{"sweep", "steady", "-seed", "1", "-out", dir},
		{"kit", "raft", "-out", dir},
		{"check", "-", "-out", dir},
	} {
		r := labsim(nil, args...)
		assert.Equal(t, exitUsage, r.code, "%v", args)
		assertOneError(t, r, "-out "+dir+": its parent "+filepath.Dir(dir)+" does not exist (labsim makes the last directory of -out only)")
	}
	_, err := os.Stat(filepath.Join(root, "no"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing made")

	r := labsim(nil, "run", "tiny", "-out", filepath.Join(root, "new"))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.DirExists(t, filepath.Join(root, "new"), "the last directory is made")
}
