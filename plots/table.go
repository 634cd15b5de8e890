// Package plots draws the lab's figures with gonum/plot: lines with a
// percentile band, CDFs, grouped bars, box plots, and time series with
// fault intervals shaded. Every figure is saved as PNG and SVG, and the
// data behind it as CSV; the same data gives byte-identical files.
package plots

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"
)

// A Table is the data behind a figure: named columns and rows of cells.
type Table struct {
	Columns []string
	Rows    [][]string
}

// NewTable returns an empty table with the given columns.
func NewTable(columns ...string) *Table { return &Table{Columns: columns} }

// Add appends a row. Floats keep six significant digits and durations
// become seconds, so that the CSV reads well and never depends on more
// precision than the figure shows.
func (t *Table) Add(cells ...any) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("plots: row of %d cells for %d columns %v", len(cells), len(t.Columns), t.Columns))
	}
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = format(c)
	}
	t.Rows = append(t.Rows, row)
}

func format(c any) string {
	switch v := c.(type) {
	case float64:
		return strconv.FormatFloat(v, 'g', 6, 64)
	case time.Duration:
		return strconv.FormatFloat(v.Seconds(), 'g', 6, 64)
	default:
		return fmt.Sprint(v)
	}
}

// WriteCSV writes the table as CSV with a header row.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Columns); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}
