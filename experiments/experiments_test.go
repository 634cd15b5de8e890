package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.Len(t, seen, 10)
	_, err := Lookup("fig99")
	assert.ErrorContains(t, err, `unknown experiment "fig99"; the experiments are: all-minority, concurrency,`)
}

// TestSameSeedSameFiles runs a small experiment twice and compares every
// file it writes, byte for byte.
func TestSameSeedSameFiles(t *testing.T) {
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
