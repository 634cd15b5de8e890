package labsim

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

var compareCmd = &command{
	name:    "compare",
	args:    "DIR_A DIR_B [-columns N]",
	short:   "compare two runs of 'labsim figures' (cut-down and -full, say), CSV by CSV",
	arg:     "directory",
	argHint: "name two directories that 'labsim figures' wrote",
	long: `
Compare reads the CSV files of two directories that 'labsim figures'
wrote (the cut-down run and the -full run, say, or two builds), and prints
a Markdown table with a row per experiment: what -full changes in it (its
help's words, or that it is not cut down), whether its CSV is the same
byte for byte, its rows in each, and the columns that moved the most from
DIR_A to DIR_B: each column's mean over its numbers, in both, and, where
the two CSVs hold the same points (the same header, rows and words), the
smallest and largest move of its cells row by row; a column ranks by the
largest of these moves. Nothing is run. It exits with status 2, naming
the file, if a directory holds no CSV or a CSV cannot be read.`,
	flagsMany: func(fs *flag.FlagSet) actionMany {
		top := fs.Int("columns", 3, "name at most `N` columns per experiment, those whose mean moved most")
		return func(e *env, args []string) error {
			if len(args) != 2 {
				return usagef("compare takes two directories, not %d arguments", len(args))
			}
			for _, d := range args {
				if err := checkDir(d); err != nil {
					return err
				}
			}
			if *top < 1 {
				return usagef("-columns %d: name at least one column", *top)
			}
			rows, err := compareFigures(e, args[0], args[1], *top)
			if err != nil {
				return err
			}
			fmt.Fprint(e.stdout, rows)
			return nil
		}
	},
}

// A csvFile is one experiment's CSV: its bytes, its header and its rows.
type csvFile struct {
	raw    []byte
	header []string
	rows   [][]string
}

// readCSVs reads every DIR/NAME.csv, by NAME.
func readCSVs(dir string) (map[string]csvFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, usagef("%s: no CSV files; name a directory that 'labsim figures' wrote", dir)
	}
	out := map[string]csvFile{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
		if err != nil || len(recs) == 0 {
			return nil, usagef("%s: not a CSV with a header: %v", p, cmp.Or(err, io.EOF))
		}
		out[strings.TrimSuffix(filepath.Base(p), ".csv")] = csvFile{raw: raw, header: recs[0], rows: recs[1:]}
	}
	return out, nil
}

// columnMeans returns the mean of the numeric cells of each column of f
// that has any, by the column's name (a cell left empty, or a word, is
// passed over).
func columnMeans(f csvFile) map[string]float64 {
	means := map[string]float64{}
	for c, name := range f.header {
		sum, n := 0.0, 0
		for _, r := range f.rows {
			if c >= len(r) {
				continue
			}
			v, err := strconv.ParseFloat(r[c], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			sum, n = sum+v, n+1
		}
		if n > 0 {
			means[name] = sum / float64(n)
		}
	}
	return means
}

// A columnMove is how far a column's mean moved between two runs, and,
// where the runs' rows line up, how far its cells moved row by row
// (relative to the first run's, lo to hi).
type columnMove struct {
	name   string
	a, b   float64
	rows   bool
	lo, hi float64
}

// rel is the move relative to the first run's mean (infinite from zero).
func (m columnMove) rel() float64 {
	if m.a == m.b {
		return 0
	}
	if m.a == 0 {
		return math.Inf(1)
	}
	return (m.b - m.a) / math.Abs(m.a)
}

// size is how far the column moved: its mean's move, or, if larger, its
// largest move row by row, either way.
func (m columnMove) size() float64 {
	size := math.Abs(m.rel())
	if m.rows {
		size = max(size, math.Abs(m.lo), math.Abs(m.hi))
	}
	return size
}

func (m columnMove) String() string {
	s := fmt.Sprintf("%s %.4g → %.4g", m.name, m.a, m.b)
	if r := m.rel(); !math.IsInf(r, 0) {
		s += fmt.Sprintf(" (%+.0f %%", 100*r)
		if m.rows {
			s += fmt.Sprintf("; rows %+.0f to %+.0f %%", 100*m.lo, 100*m.hi)
		}
		s += ")"
	}
	return s
}

// aligned reports whether x and y have the same header and rows, and
// in each row the same cells where either's is not a number: the same
// points, measured twice.
func aligned(x, y csvFile) bool {
	if !slices.Equal(x.header, y.header) || len(x.rows) != len(y.rows) {
		return false
	}
	for i := range x.rows {
		if len(x.rows[i]) != len(y.rows[i]) {
			return false
		}
		for c := range x.rows[i] {
			_, errA := strconv.ParseFloat(x.rows[i][c], 64)
			_, errB := strconv.ParseFloat(y.rows[i][c], 64)
			if (errA != nil || errB != nil) && x.rows[i][c] != y.rows[i][c] {
				return false
			}
		}
	}
	return true
}

// rowMoves returns the smallest and largest relative move of column c's
// cells, row by row, over the rows where both are numbers and the first
// is not zero; ok is false if there are none.
func rowMoves(x, y csvFile, c int) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range x.rows {
		va, errA := strconv.ParseFloat(x.rows[i][c], 64)
		vb, errB := strconv.ParseFloat(y.rows[i][c], 64)
		if errA != nil || errB != nil || va == 0 {
			continue
		}
		r := (vb - va) / math.Abs(va)
		lo, hi, ok = min(lo, r), max(hi, r), true
	}
	return lo, hi, ok
}

// compareFigures returns the Markdown table comparing the figures of dirs
// a and b, naming at most top columns per experiment.
func compareFigures(e *env, a, b string, top int) (string, error) {
	fa, err := readCSVs(a)
	if err != nil {
		return "", err
	}
	fb, err := readCSVs(b)
	if err != nil {
		return "", err
	}
	full := map[string]string{}
	for _, x := range e.experiments {
		full[x.Name] = cmp.Or(x.Full, "not cut down")
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range fa {
			if !yield(n) {
				return
			}
		}
		for n := range fb {
			if _, ok := fa[n]; !ok && !yield(n) {
				return
			}
		}
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "| experiment | what -full changes | CSV | rows | columns whose mean moved most (%s → %s) |\n|---|---|---|---|---|\n", a, b)
	for _, n := range names {
		x, okA := fa[n]
		y, okB := fb[n]
		what := cmp.Or(full[n], "not an experiment of this build")
		switch {
		case !okA || !okB:
			fmt.Fprintf(&sb, "| %s | %s | only in %s | | |\n", n, what, map[bool]string{true: a, false: b}[okA])
			continue
		case bytes.Equal(x.raw, y.raw):
			fmt.Fprintf(&sb, "| %s | %s | identical | %d | |\n", n, what, len(x.rows))
			continue
		}
		ma, mb := columnMeans(x), columnMeans(y)
		rows := aligned(x, y)
		var moves []columnMove
		for c, col := range x.header {
			va, okA := ma[col]
			vb, okB := mb[col]
			if !okA || !okB {
				continue
			}
			m := columnMove{name: col, a: va, b: vb}
			if rows {
				m.lo, m.hi, m.rows = rowMoves(x, y, c)
			}
			if m.size() > 0 {
				moves = append(moves, m)
			}
		}
		slices.SortStableFunc(moves, func(p, q columnMove) int { return cmp.Compare(q.size(), p.size()) })
		var named []string
		for _, m := range moves[:min(top, len(moves))] {
			named = append(named, m.String())
		}
		fmt.Fprintf(&sb, "| %s | %s | differs | %d → %d | %s |\n", n, what, len(x.rows), len(y.rows), strings.Join(named, "; "))
	}
	return sb.String(), nil
}

// errNoDir is what compare says of a directory it cannot read.
var errNoDir = errors.New("not a directory")

// checkDir returns an error naming dir unless it is a directory.
func checkDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &fs.PathError{Op: "compare", Path: dir, Err: errNoDir}
	}
	return nil
}
