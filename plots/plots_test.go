package plots

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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

func TestMeanCI95(t *testing.T) {
	mean, lo, hi := MeanCI95([]float64{1, 2, 3, 4, 5})
	assert.Equal(t, 3.0, mean)
	half := 1.96 * math.Sqrt(2.5/5) // sample variance 2.5, 5 values
	assert.InDelta(t, 3-half, lo, 1e-12)
	assert.InDelta(t, 3+half, hi, 1e-12)
	mean, lo, hi = MeanCI95([]float64{7})
	assert.Equal(t, [3]float64{7, 7, 7}, [3]float64{mean, lo, hi})
	mean, lo, hi = MeanCI95(nil)
	assert.True(t, math.IsNaN(mean) && math.IsNaN(lo) && math.IsNaN(hi))
}

// figures draws one figure of each kind.
func figures(t *testing.T) []Figure {
	lines, err := Lines(Axes{Title: "lines", X: "x", Y: "y"}, Band{Name: "a", X: []float64{1, 2, 3}, Mid: []float64{1, 2, 3}, Low: []float64{0.5, 1.5, 2.5}, High: []float64{2, 3, 4}})
	require.NoError(t, err)
	cdf, err := CDF(Axes{Title: "cdf", X: "s", Y: "fraction"}, Samples{Name: "a", Values: []float64{3, 1, 2}}, Samples{Name: "b", Values: []float64{2, 2, 5}})
	require.NoError(t, err)
	bars, err := Bars(Axes{Title: "bars", Y: "ops/s", LogY: true}, []string{"g1", "g2"}, Samples{Name: "a", Values: []float64{1, 2}}, Samples{Name: "b", Values: []float64{3, 400}})
	require.NoError(t, err)
	boxes, err := Boxes(Axes{Title: "boxes", X: "n", Y: "s"}, Samples{Name: "5", Values: []float64{1, 2, 3, 10}}, Samples{Name: "7", Values: []float64{2, 3}})
	require.NoError(t, err)
	ts, err := TimeSeries(Axes{Title: "ts", X: "s", Y: "ops/s"}, []fault.Interval{{Start: time.Second, End: 2 * time.Second, Label: "partition"}}, Series{Name: "a", X: []float64{0, 1, 2, 3}, Y: []float64{5, 0, 1, 5}})
	require.NoError(t, err)
	return []Figure{{Name: "lines", Charts: []*Chart{lines}}, {Name: "cdf", Charts: []*Chart{cdf}}, {Name: "bars", Charts: []*Chart{bars}}, {Name: "boxes", Charts: []*Chart{boxes}}, {Name: "ts", Charts: []*Chart{ts, lines}}}
}

func TestBadFigureInput(t *testing.T) {
	_, err := Bars(Axes{Title: "bars"}, []string{"g1", "g2"}, Samples{Name: "a", Values: []float64{1}})
	assert.EqualError(t, err, `plots: bar series "a" has 1 values for 2 groups`)
	_, err = Bars(Axes{Title: "bars", LogY: true}, []string{"g1"}, Samples{Name: "a", Values: []float64{0}})
	assert.EqualError(t, err, `plots: bar series "a" has the value 0, which a logarithmic axis cannot show`)
	_, err = Boxes(Axes{Title: "boxes"}, Samples{Name: "empty"})
	assert.ErrorContains(t, err, `plots: box "empty"`)
	_, err = Figure{Name: "empty"}.Save(t.TempDir())
	assert.EqualError(t, err, `plots: figure "empty" has no charts`)
}

// labels returns the labelled ticks' labels.
func labels(ticks []plot.Tick) []string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestTicksLabelEnoughValues(t *testing.T) {
	assert.Equal(t, []string{"0", "5000", "10000", "15000", "20000", "25000"}, labels(linearTicks{}.Ticks(0, 27000)))
	assert.Equal(t, []string{"0", "2", "4", "6", "8", "10"}, labels(linearTicks{}.Ticks(0, 10)))
	assert.Equal(t, []string{"0.2", "0.4", "0.6", "0.8", "1"}, labels(linearTicks{}.Ticks(0.1, 1.1)))
	assert.Equal(t, []string{"16", "18", "20", "22", "24", "26", "28", "30"}, labels(linearTicks{}.Ticks(16, 30)))
	assert.Equal(t, []string{"3"}, labels(linearTicks{}.Ticks(3, 3)))
	assert.Equal(t, []string{"1", "2", "5", "10", "20", "50", "100"}, labels(logTicks{}.Ticks(1, 100)))
	assert.Equal(t, []string{"0.01", "0.1", "1", "10", "100", "1000"}, labels(logTicks{}.Ticks(0.01, 1000)))
}

func TestValuesAreWrittenWithThreeDigits(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1234.4: "1234", 312.4: "312", 31.24: "31.2", 3.124: "3.12", 3: "3", 2.5: "2.5", 0.3124: "0.312"} {
		assert.Equal(t, want, formatValue(v))
	}
}

// TestReverseX puts the largest x on the left, on a linear or a
// logarithmic axis.
func TestReverseX(t *testing.T) {
	for _, log := range []bool{false, true} {
		ch := newChart(Axes{LogX: log, ReverseX: true})
		assert.Equal(t, 0.0, ch.Plot.X.Scale.Normalize(1, 100, 100), "log %v: the largest on the left", log)
		assert.Equal(t, 1.0, ch.Plot.X.Scale.Normalize(1, 100, 1), "log %v: the smallest on the right", log)
	}
	assert.Equal(t, 1.0, newChart(Axes{}).Plot.X.Scale.Normalize(1, 100, 100), "not reversed by default")
}

// TestLegendIsBelowTheData checks that a legend takes a strip of its own,
// wrapped into rows that fit the width, and that a chart without one
// takes none.
func TestLegendIsBelowTheData(t *testing.T) {
	ch := newChart(Axes{Title: "t"})
	assert.Zero(t, ch.legendHeight(width))
	for _, name := range []string{"a long name for the first entry", "a long name for the second", "a third"} {
		ch.addLegend(name)
	}
	assert.Len(t, ch.legendRows(width), 1)
	assert.Len(t, ch.legendRows(width/3), 3)
	assert.Greater(t, ch.legendHeight(width/3), ch.legendHeight(width))
}

// TestFiguresAreByteIdentical renders the figures three times, once
// alone, then twice from two goroutines at once, as labsim figures does:
// every rendering must write the same bytes, in both formats.
func TestFiguresAreByteIdentical(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	save := func(dir string, figs []Figure) error {
		for _, f := range figs {
			paths, err := f.Save(dir)
			if err != nil {
				return err
			}
			if len(paths) != 2 {
				return fmt.Errorf("%s saved as %v, want a PNG and an SVG", f.Name, paths)
			}
		}
		return nil
	}
	require.NoError(t, save(dirs[0], figures(t)))
	errs := make(chan error, 2)
	for _, dir := range dirs[1:] {
		figs := figures(t)
		go func() { errs <- save(dir, figs) }()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	files, err := os.ReadDir(dirs[0])
	require.NoError(t, err)
	assert.Len(t, files, 10)
	for _, f := range files {
		a, err := os.ReadFile(filepath.Join(dirs[0], f.Name()))
		require.NoError(t, err)
		assert.NotEmpty(t, a)
		for _, dir := range dirs[1:] {
			b, err := os.ReadFile(filepath.Join(dir, f.Name()))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(a, b), "%s differs between two renderings", f.Name())
		}
	}
}

// TestTimeSeriesShareAScale checks that charts given one YMax get one
// value axis, whatever their own largest value.
func TestTimeSeriesShareAScale(t *testing.T) {
	var tops []float64
	for _, peak := range []float64{4000, 5200} {
		ch, err := TimeSeries(Axes{YMax: 5200}, nil, Series{Name: "a", X: []float64{0, 1}, Y: []float64{peak, 1}})
		require.NoError(t, err)
		tops = append(tops, ch.Plot.Y.Max)
	}
	assert.Equal(t, []float64{5200 * 1.05, 5200 * 1.05}, tops)
	ch, err := TimeSeries(Axes{}, nil, Series{Name: "a", X: []float64{0, 1}, Y: []float64{4000, 1}})
	require.NoError(t, err)
	assert.Equal(t, 4000*1.05, ch.Plot.Y.Max, "without YMax, its own largest value")
}

// TestBarsLeaveNoGap checks a bar chart's layout: no vertical grid lines
// (groups are not a scale), and no more room between the value axis and
// the first bar than its group's label needs.
func TestBarsLeaveNoGap(t *testing.T) {
	groups := []string{"kvraft, replicating on heartbeats", "kvraft, replicating on Start"}
	ch, err := Bars(Axes{Y: "ops/s"}, groups, Samples{Name: "ops", Values: []float64{9.93, 597}})
	require.NoError(t, err)
	assert.Nil(t, ch.grid.Vertical.Color)
	c := draw.New(vgimg.New(600, 400))
	ch.padBars(c)
	half := ch.Plot.X.Tick.Label.Width(groups[0]) / 2
	assert.Less(t, ch.Plot.Y.Padding, half/2, "a group is wider than its label: little padding")

	many := make([]string, 12)
	for i := range many {
		many[i] = groups[0]
	}
	ch, err = Bars(Axes{Y: "ops/s"}, many, Samples{Name: "ops", Values: make([]float64, 12)})
	require.NoError(t, err)
	ch.padBars(c)
	group := ch.Plot.DataCanvas(c).Size().X / 12
	assert.GreaterOrEqual(t, ch.Plot.Y.Padding+group/2, half, "a label wider than its group fits beside the axis")
}

// TestBarsWithoutAValue checks that a NaN is a bar a series does not
// have: accepted on a logarithmic axis, left out of the value range (and
// of the axis's bottom), and drawn as an empty place.
func TestBarsWithoutAValue(t *testing.T) {
	ch, err := Bars(Axes{Y: "ops/s", LogY: true}, []string{"g1", "g2"}, Samples{Name: "here", Values: []float64{20, 300}}, Samples{Name: "paper", Values: []float64{math.NaN(), 40}})
	require.NoError(t, err)
	assert.InDelta(t, 10/1.2, ch.Plot.Y.Min, 1e-9, "a power of ten below half the lowest bar (20), a little lower still")
	_, _, lo, hi := (&bars{values: []float64{math.NaN(), 40}}).DataRange()
	assert.Equal(t, []float64{40, 40}, []float64{lo, hi})
	_, _, lo, hi = (&bars{values: []float64{math.NaN()}}).DataRange()
	assert.Equal(t, []float64{0, 0}, []float64{lo, hi}, "no values at all")
	_, err = Figure{Name: "none", Charts: []*Chart{ch}}.Save(t.TempDir())
	require.NoError(t, err)
}

// TestBarsFitTheirGroup checks that a group's bars keep 120 points
// between them where the group has room, and otherwise leave a gap to the
// next group's.
func TestBarsFitTheirGroup(t *testing.T) {
	assert.Equal(t, vg.Length(60), barWidth(200, 2), "room enough")
	assert.Equal(t, vg.Length(60), barWidth(126, 2), "just enough")
	assert.Equal(t, vg.Length(45), barWidth(96, 2), "four groups on a chart")
	assert.Equal(t, vg.Length(0), barWidth(3, 2), "no room at all")
}

func TestFitText(t *testing.T) {
	sty := plot.NewLegend().TextStyle
	sty.Font.Size = vg.Points(9)
	assert.Equal(t, vg.Points(9), fitText(sty, "0.5", vg.Points(100)).Font.Size, "it fits")
	small := fitText(sty, "0.592", vg.Points(18))
	assert.Less(t, small.Font.Size, vg.Points(9))
	assert.LessOrEqual(t, small.Width("0.592"), vg.Points(18)*0.95, "made to fit")
	assert.Equal(t, vg.Points(6), fitText(sty, "1234567890", vg.Points(5)).Font.Size, "never below 6 points")
}

// TestTimeSeriesMarks draws a series with Marks as markers alone, a
// scatter in the plot and the legend, beside a line, and counts its
// points in the scale.
func TestTimeSeriesMarks(t *testing.T) {
	ch, err := TimeSeries(Axes{}, nil, Series{Name: "line", X: []float64{0, 1, 2}, Y: []float64{1, 2, 1}},
		Series{Name: "marks", X: []float64{1}, Y: []float64{30}, Marks: true})
	require.NoError(t, err)
	require.Len(t, ch.legend, 2)
	assert.IsType(t, &plotter.Line{}, ch.legend[0].thumbs[0])
	assert.IsType(t, &plotter.Scatter{}, ch.legend[1].thumbs[0], "a marks series is drawn as points")
	assert.Equal(t, 30*1.05, ch.Plot.Y.Max, "the marks' values count in the scale")
}
