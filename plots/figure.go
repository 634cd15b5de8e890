package plots

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/replab/replab/fault"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Figure is a plot with the name its files get and a caption.
type Figure struct {
	Name    string
	Caption string
	Plot    *plot.Plot
}

// Figure size on the page.
const (
	width  = 16 * vg.Centimeter
	height = 10 * vg.Centimeter
)

// Save writes the figure as dir/Name.png and dir/Name.svg and returns the
// paths.
func (f Figure) Save(dir string) ([]string, error) {
	var paths []string
	for _, ext := range []string{".png", ".svg"} {
		path := filepath.Join(dir, f.Name+ext)
		wt, err := f.Plot.WriterTo(width, height, ext[1:])
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", path, err)
		}
		file, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		_, err = wt.WriteTo(file)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Marker = compactTicks{}
	p.Y.Tick.Marker = compactTicks{}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// compactTicks are gonum's default ticks labelled without trailing zeros
// (25000, not 25000.00).
type compactTicks struct{}

// Ticks returns the default ticks for [min, max], relabelled.
func (compactTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'g', 6, 64)
		}
	}
	return ticks
}

// LogX puts p's x axis on a logarithmic scale.
func LogX(p *plot.Plot) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
}

// LogY puts p's y axis on a logarithmic scale.
func LogY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
}

// A Band is a line through Mid with the area between Low and High shaded:
// a mean with its p5-p95 range, say. Low and High may be nil.
type Band struct {
	Name              string
	X, Mid, Low, High []float64
}

// Lines plots bands, one color each.
func Lines(title, xlabel, ylabel string, bands ...Band) (*plot.Plot, error) {
	p := newPlot(title, xlabel, ylabel)
	for i, b := range bands {
		c := plotutil.Color(i)
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
			p.Add(poly)
		}
		line, points, err := plotter.NewLinePoints(xys(b.X, b.Mid))
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = c, c
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(b.Name, line, points)
	}
	p.Legend.Left = true
	return p, nil
}

// Samples is a named sample of values.
type Samples struct {
	Name   string
	Values []float64
}

// CDF plots each sample's cumulative distribution.
func CDF(title, xlabel string, samples ...Samples) (*plot.Plot, error) {
	p := newPlot(title, xlabel, "fraction")
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
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		p.Add(line)
		p.Legend.Add(s.Name, line)
	}
	p.Legend.Left, p.Legend.Top = false, false
	return p, nil
}

// Bars plots grouped bars: bar series k has its value for group i in
// series[k].Values[i].
func Bars(title, ylabel string, groups []string, series ...Samples) (*plot.Plot, error) {
	p := newPlot(title, "", ylabel)
	w := vg.Points(60 / float64(max(1, len(series))))
	for k, s := range series {
		if len(s.Values) != len(groups) {
			return nil, fmt.Errorf("plots: bar series %q has %d values for %d groups", s.Name, len(s.Values), len(groups))
		}
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(k)
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(float64(k)-float64(len(series)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
	}
	p.NominalX(groups...)
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	p.Y.Min = 0
	p.Y.Max *= 1.2 // room for the legend
	return p, nil
}

// Boxes plots a box plot per sample, on a y axis from zero.
func Boxes(title, xlabel, ylabel string, boxes ...Samples) (*plot.Plot, error) {
	p := newPlot(title, xlabel, ylabel)
	names := make([]string, len(boxes))
	for i, b := range boxes {
		box, err := plotter.NewBoxPlot(vg.Points(20), float64(i), plotter.Values(b.Values))
		if err != nil {
			return nil, fmt.Errorf("plots: box %q: %w", b.Name, err)
		}
		box.FillColor = faded(plotutil.Color(0))
		p.Add(box)
		names[i] = b.Name
	}
	p.NominalX(names...)
	p.Y.Min = 0 // show the scale, not only the spread
	p.Y.Max *= 1.15
	return p, nil
}

// A Series is a named line of points.
type Series struct {
	Name string
	X, Y []float64
}

// TimeSeries plots series over time (x in seconds) with the fault intervals
// shaded behind them, one shade per label.
func TimeSeries(title, xlabel, ylabel string, faults []fault.Interval, series ...Series) (*plot.Plot, error) {
	p := newPlot(title, xlabel, ylabel)
	top := 0.0
	for _, s := range series {
		for _, y := range s.Y {
			top = max(top, y)
		}
	}
	top = max(1, top*1.1)
	p.Y.Max = top * 1.15 // room for the legend
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
		p.Add(poly)
		if first {
			p.Legend.Add(f.Label, poly)
		}
	}
	for i, s := range series {
		line, err := plotter.NewLine(xys(s.X, s.Y))
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		p.Add(line)
		p.Legend.Add(s.Name, line)
	}
	p.Y.Min = 0
	return p, nil
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

// shade returns the color for the k-th kind of fault.
func shade(k int) color.Color {
	return []color.Color{
		color.NRGBA{R: 220, G: 50, B: 47, A: 255},
		color.NRGBA{R: 38, G: 139, B: 210, A: 255},
		color.NRGBA{R: 133, G: 153, B: 0, A: 255},
		color.NRGBA{R: 108, G: 113, B: 196, A: 255},
	}[k%4]
}
