package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/replab/replab/chaos/fault"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Band is a line through Mid with the area between Low and High shaded:
// a mean with its p5-p95 range, say. Low and High may be nil.
type Band struct {
	Name              string
	X, Mid, Low, High []float64
}

// Lines plots bands, one color each.
func Lines(a Axes, bands ...Band) (*Chart, error) {
	ch := newChart(a)
	for i, b := range bands {
		c := palette(i)
		if b.Low != nil && b.High != nil {
			ring := make(plotter.XYs, 0, 2*len(b.X))
			for k := range b.X {
				ring = append(ring, plotter.XY{X: b.X[k], Y: b.High[k]})
			}
			for k := len(b.X) - 1; k >= 0; k-- {
				ring = append(ring, plotter.XY{X: b.X[k], Y: b.Low[k]})
			}
			poly, err := plotter.NewPolygon(ring)
			if err != nil {
				return nil, err
			}
			poly.Color = faded(c)
			poly.LineStyle.Width = 0
			ch.Plot.Add(poly)
		}
		line, points, err := plotter.NewLinePoints(xys(b.X, b.Mid))
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = c, c
		line.Dashes = plotutil.Dashes(i)
		points.Shape, points.Radius = plotutil.Shape(i), vg.Points(3)
		ch.Plot.Add(line, points)
		ch.addLegend(b.Name, line, points)
	}
	ch.fromZero(0.05)
	return ch, nil
}

// Samples is a named sample of values.
type Samples struct {
	Name   string
	Values []float64
}

// CDF plots each sample's cumulative distribution, on axes from zero.
func CDF(a Axes, samples ...Samples) (*Chart, error) {
	ch := newChart(a)
	for i, s := range samples {
		v := slices.Clone(s.Values)
		slices.Sort(v)
		pts := make(plotter.XYs, 0, len(v)+1)
		if len(v) > 0 {
			pts = append(pts, plotter.XY{X: v[0], Y: 0})
		}
		for k, x := range v {
			pts = append(pts, plotter.XY{X: x, Y: float64(k+1) / float64(len(v))})
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.StepStyle = plotter.PostStep
		line.Color = palette(i)
		line.Dashes = plotutil.Dashes(i)
		ch.Plot.Add(line)
		ch.addLegend(s.Name, line)
	}
	ch.Plot.X.Min, ch.Plot.Y.Min, ch.Plot.Y.Max = 0, 0, 1
	return ch, nil
}

// Bars plots grouped bars, each labelled with its value: bar series k has
// its value for group i in series[k].Values[i]. On a logarithmic value
// axis the bars rise from the bottom of the axis. A NaN value is a bar
// the series does not have (a paper that gives no number for a group):
// its place is left empty and labelled "none".
func Bars(a Axes, groups []string, series ...Samples) (*Chart, error) {
	ch := newChart(a)
	lowest := math.Inf(1)
	for k, s := range series {
		if len(s.Values) != len(groups) {
			return nil, fmt.Errorf("plots: bar series %q has %d values for %d groups", s.Name, len(s.Values), len(groups))
		}
		for _, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			if !(v > 0) && a.LogY {
				return nil, fmt.Errorf("plots: bar series %q has the value %v, which a logarithmic axis cannot show", s.Name, v)
			}
			lowest = min(lowest, v)
		}
		b := &bars{values: s.Values, k: k, n: len(series), color: palette(k)}
		ch.Plot.Add(b)
		if len(series) > 1 {
			ch.addLegend(s.Name, b)
		}
	}
	ch.Plot.NominalX(groups...)
	ch.Plot.X.Min, ch.Plot.X.Max = -0.5, float64(len(groups))-0.5
	ch.groups = groups
	ch.grid.Vertical.Color = nil // groups are not a scale to read off
	if a.LogY && !math.IsInf(lowest, 1) {
		// Start a power of ten below half the lowest bar, so that it
		// stands clear of the axis.
		ch.Plot.Y.Min = math.Pow(10, math.Floor(math.Log10(lowest/2)))
	}
	ch.fromZero(0.15) // room for the labels
	return ch, nil
}

// bars is series k of the n of a bar chart: a bar per group, the k-th
// from the left of the group's n, rising from the bottom of the axis, with
// its value written on top; "none" at the bottom where the value is NaN.
type bars struct {
	values []float64
	k, n   int
	color  color.Color
}

// groupBars is the most room a group's bars take together: less where the
// groups are narrower, so that a gap of groupGap stays between groups.
const (
	groupBars = vg.Length(120)
	groupGap  = vg.Length(6)
)

// barWidth returns the width of each of n bars in a group group wide.
func barWidth(group vg.Length, n int) vg.Length {
	return max(0, min(groupBars, group-groupGap)) / vg.Length(n)
}

// Plot draws the bars and their labels.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	width := barWidth(trX(1)-trX(0), b.n)
	offset := width * vg.Length(float64(b.k)-float64(b.n-1)/2)
	sty := plot.NewLegend().TextStyle
	sty.Font.Size = vg.Points(9)
	sty.XAlign = draw.XCenter
	for i, v := range b.values {
		x := trX(float64(i)) + offset
		if math.IsNaN(v) {
			c.FillText(fitText(sty, "none", width), vg.Point{X: x, Y: c.Min.Y + vg.Points(2)}, "none")
			continue
		}
		y := trY(v)
		c.SetColor(b.color)
		c.Fill(vg.Rectangle{Min: vg.Point{X: x - width/2, Y: c.Min.Y}, Max: vg.Point{X: x + width/2, Y: y}}.Path())
		label := formatValue(v)
		c.FillText(fitText(sty, label, width), vg.Point{X: x, Y: y + vg.Points(2)}, label)
	}
}

// DataRange returns the groups' range and the values', NaNs left out.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, v := range b.values {
		if !math.IsNaN(v) {
			ymin, ymax = min(ymin, v), max(ymax, v)
		}
	}
	if ymin > ymax { // no values: an empty range at zero
		ymin, ymax = 0, 0
	}
	return 0, float64(len(b.values) - 1), ymin, ymax
}

// Thumbnail draws a block of the bars' color for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	c.SetColor(b.color)
	c.Fill(c.Rectangle.Path())
}

// formatValue writes v rounded to three significant digits, without
// trailing zeros (1234, 312, 31.2, 3, 0.312).
func formatValue(v float64) string {
	if v == 0 {
		return "0"
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if decimals > 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Boxes plots a box plot per sample, on a value axis from zero.
func Boxes(a Axes, boxes ...Samples) (*Chart, error) {
	ch := newChart(a)
	names := make([]string, len(boxes))
	for i, b := range boxes {
		box, err := plotter.NewBoxPlot(vg.Points(20), float64(i), plotter.Values(b.Values))
		if err != nil {
			return nil, fmt.Errorf("plots: box %q: %w", b.Name, err)
		}
		box.FillColor = faded(palette(0))
		ch.Plot.Add(box)
		names[i] = b.Name
	}
	ch.Plot.NominalX(names...)
	ch.fromZero(0.05)
	return ch, nil
}

// A Series is a named line of points, or with Marks the points alone,
// each a marker (the few failed operations among many, say).
type Series struct {
	Name  string
	X, Y  []float64
	Marks bool
}

// TimeSeries plots series over time (x in seconds) with the fault intervals
// shaded behind them, one shade per label.
func TimeSeries(a Axes, faults []fault.Interval, series ...Series) (*Chart, error) {
	ch := newChart(a)
	top := a.YMax
	for _, s := range series {
		for _, y := range s.Y {
			top = max(top, y)
		}
	}
	top = max(1, top*1.05)
	var labels []string
	for _, f := range faults {
		k := slices.Index(labels, f.Label)
		first := k < 0
		if first {
			labels = append(labels, f.Label)
			k = len(labels) - 1
		}
		x0, x1 := f.Start.Seconds(), f.End.Seconds()
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: top}, {X: x0, Y: top}})
		if err != nil {
			return nil, err
		}
		poly.Color = faded(shade(k))
		poly.LineStyle.Width = 0
		ch.Plot.Add(poly)
		if first {
			ch.addLegend(f.Label, poly)
		}
	}
	for i, s := range series {
		if s.Marks {
			points, err := plotter.NewScatter(xys(s.X, s.Y))
			if err != nil {
				return nil, err
			}
			points.Color, points.Shape, points.Radius = palette(i), plotutil.Shape(i), vg.Points(2.5)
			ch.Plot.Add(points)
			ch.addLegend(s.Name, points)
			continue
		}
		line, err := plotter.NewLine(xys(s.X, s.Y))
		if err != nil {
			return nil, err
		}
		line.Color = palette(i)
		ch.Plot.Add(line)
		ch.addLegend(s.Name, line)
	}
	ch.Plot.Y.Min, ch.Plot.Y.Max = 0, top
	return ch, nil
}

func xys(x, y []float64) plotter.XYs {
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts
}

// faded returns c at a quarter opacity.
func faded(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 64}
}

// palette returns the color of the i-th series: strong colors that read on
// white, lines and markers alike (Tableau's ten).
func palette(i int) color.Color {
	c := []uint32{0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd, 0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf}[i%10]
	return color.NRGBA{R: uint8(c >> 16), G: uint8(c >> 8), B: uint8(c), A: 255}
}

// shade returns the color for the k-th kind of fault.
func shade(k int) color.Color {
	return []color.Color{
		color.NRGBA{R: 220, G: 50, B: 47, A: 255},
		color.NRGBA{R: 38, G: 139, B: 210, A: 255},
		color.NRGBA{R: 133, G: 153, B: 0, A: 255},
		color.NRGBA{R: 108, G: 113, B: 196, A: 255},
	}[k%4]
}

// fitText returns sty with its font made smaller, down to 6 points, until
// text fits in width: a bar's label must not run into the next bar's.
func fitText(sty draw.TextStyle, text string, width vg.Length) draw.TextStyle {
	for sty.Font.Size > vg.Points(6) && sty.Width(text) > width*0.95 {
		sty.Font.Size -= vg.Points(0.5)
	}
	return sty
}
