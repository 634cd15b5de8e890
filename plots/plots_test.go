package plots

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/fault"
)

func TestTableCSV(t *testing.T) {
	tab := NewTable("clients", "latency", "ok")
	tab.Add(1, 1500*time.Millisecond, true)
	tab.Add(10, 0.123456789, false)
	var b bytes.Buffer
	require.NoError(t, tab.WriteCSV(&b))
	assert.Equal(t, "clients,latency,ok\n1,1.5,true\n10,0.123457,false\n", b.String())
	assert.PanicsWithValue(t, "plots: row of 1 cells for 3 columns [clients latency ok]", func() { tab.Add(1) })
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10})
	assert.Equal(t, Stats{N: 10, Mean: 5.5, Min: 1, P5: 1, P50: 5, P95: 10, Max: 10}, s)
	assert.Equal(t, Stats{}, Summarize(nil))
}

// figures draws one figure of each kind.
func figures(t *testing.T) []Figure {
	lines, err := Lines("lines", "x", "y", Band{Name: "a", X: []float64{1, 2, 3}, Mid: []float64{1, 2, 3}, Low: []float64{0.5, 1.5, 2.5}, High: []float64{2, 3, 4}})
	require.NoError(t, err)
	cdf, err := CDF("cdf", "s", Samples{Name: "a", Values: []float64{3, 1, 2}}, Samples{Name: "b", Values: []float64{2, 2, 5}})
	require.NoError(t, err)
	bars, err := Bars("bars", "ops/s", []string{"g1", "g2"}, Samples{Name: "a", Values: []float64{1, 2}}, Samples{Name: "b", Values: []float64{3, 4}})
	require.NoError(t, err)
	boxes, err := Boxes("boxes", "n", "s", Samples{Name: "5", Values: []float64{1, 2, 3, 10}}, Samples{Name: "7", Values: []float64{2, 3}})
	require.NoError(t, err)
	ts, err := TimeSeries("ts", "s", "ops/s", []fault.Interval{{Start: time.Second, End: 2 * time.Second, Label: "partition"}}, Series{Name: "a", X: []float64{0, 1, 2, 3}, Y: []float64{5, 0, 1, 5}})
	require.NoError(t, err)
	return []Figure{{Name: "lines", Plot: lines}, {Name: "cdf", Plot: cdf}, {Name: "bars", Plot: bars}, {Name: "boxes", Plot: boxes}, {Name: "ts", Plot: ts}}
}

func TestFiguresAreByteIdentical(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		for _, f := range figures(t) {
			paths, err := f.Save(dir)
			require.NoError(t, err)
			require.Len(t, paths, 2)
		}
	}
	files, err := os.ReadDir(dirs[0])
	require.NoError(t, err)
	assert.Len(t, files, 10)
	for _, f := range files {
		a, err := os.ReadFile(filepath.Join(dirs[0], f.Name()))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], f.Name()))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s differs between two renderings", f.Name())
		assert.NotEmpty(t, a)
	}
}

func TestBadFigureInput(t *testing.T) {
	_, err := Bars("bars", "y", []string{"g1", "g2"}, Samples{Name: "a", Values: []float64{1}})
	assert.EqualError(t, err, `plots: bar series "a" has 1 values for 2 groups`)
	_, err = Boxes("boxes", "x", "y", Samples{Name: "empty"})
	assert.ErrorContains(t, err, `plots: box "empty"`)
}

// TestConcurrentRenderingIsIdentical renders the figures from two
// goroutines at once, as labsim figures does, and compares the bytes.
func TestConcurrentRenderingIsIdentical(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	figs := [][]Figure{figures(t), figures(t)}
	errs := make(chan error, 2)
	for i, dir := range dirs {
		go func() {
			for _, f := range figs[i] {
				if _, err := f.Save(dir); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	for _, f := range figs[0] {
		for _, ext := range []string{".png", ".svg"} {
			a, err := os.ReadFile(filepath.Join(dirs[0], f.Name+ext))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dirs[1], f.Name+ext))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(a, b), "%s%s", f.Name, ext)
		}
	}
}
