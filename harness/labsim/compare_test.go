package labsim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompareFigures compares two directories of CSVs: one the same byte
// for byte, one whose columns moved (the larger move named first, a
// column of words and empty cells passed over), one in a single
// directory; and refuses an empty directory, a file and -columns 0.
func TestCompareFigures(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".csv"), []byte(text), 0o644))
	}
	write(a, "same", "x,y\n1,2\n")
	write(b, "same", "x,y\n1,2\n")
	write(a, "moved", "kind,n,rate\nr,10,100\nw,,100\n")
	write(b, "moved", "kind,n,rate\nr,100,110\nw,,90\nw,,110\n")
	write(a, "gone", "x\n1\n")
	r := labsim(nil, "compare", a, b, "-columns", "1")
	require.Equal(t, exitOK, r.code, r.stderr)
	out := r.stdout
	assert.Contains(t, out, "| same | not an experiment of this build | identical | 1 | |")
	assert.Contains(t, out, "| moved | not an experiment of this build | differs | 2 → 3 | n 10 → 100 (+900 %) |", "rate's mean moved 100 → 103.3, less")
	assert.Contains(t, out, "| gone | not an experiment of this build | only in "+a+" | | |")
	r = labsim(nil, "compare", a, b)
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "n 10 → 100 (+900 %); rate 100 → 103.3 (+3 %)", "3 rows against 2: no row-by-row moves")

	write(b, "moved", "kind,n,rate\nr,20,110\nw,,90\n")
	r = labsim(nil, "compare", a, b)
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "| moved | not an experiment of this build | differs | 2 → 2 | n 10 → 20 (+100 %; rows +100 to +100 %); rate 100 → 100 (+0 %; rows -10 to +10 %) |")

	empty := labsim(nil, "compare", a, t.TempDir())
	assert.Equal(t, exitUsage, empty.code)
	assert.Contains(t, empty.stderr, "no CSV files")
	file := labsim(nil, "compare", a, filepath.Join(a, "same.csv"))
	assert.NotEqual(t, exitOK, file.code)
	assert.Contains(t, file.stderr, "not a directory")
	cols := labsim(nil, "compare", a, b, "-columns", "0")
	assert.Equal(t, exitUsage, cols.code)
	assert.Contains(t, cols.stderr, "-columns 0")
	assert.Equal(t, exitUsage, labsim(nil, "compare", a).code)
}
