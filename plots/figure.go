package plots

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Figure is one or more charts, stacked top to bottom, with the name its
// files get and a caption.
type Figure struct {
	Name    string
	Caption string
	Charts  []*Chart
}

// A Chart is a gonum plot whose legend is kept apart and drawn in a strip
// below the axes, so that it never covers the data.
type Chart struct {
	Plot   *plot.Plot
	legend []legendEntry
	grid   *plotter.Grid
	// groups are a bar chart's groups, whose labels name the x axis's
	// ticks; none in other charts.
	groups []string
}

// Axes are a chart's title and axis labels, and which axes are
// logarithmic. A linear value axis starts at zero.
type Axes struct {
	Title, X, Y string
	LogX, LogY  bool
	// ReverseX runs the x axis from its largest value on the left to its
	// smallest on the right (a keyspace shrinking as contention grows, say).
	ReverseX bool
	// YMax, if above zero, is the least top of a time series' value axis:
	// charts stacked for comparison give it the largest value of them all,
	// so that they share their scale and ticks.
	YMax float64
}

// Chart size on the page, not counting its legend.
const (
	width                 = 16 * vg.Centimeter
	height                = 10 * vg.Centimeter
	stackHeight           = 7 * vg.Centimeter // each chart of a stack of several
	margin      vg.Length = 6                 // points around a chart
)

// Save writes the figure as dir/Name.png and dir/Name.svg and returns the
// paths.
func (f Figure) Save(dir string) ([]string, error) {
	if len(f.Charts) == 0 {
		return nil, fmt.Errorf("plots: figure %q has no charts", f.Name)
	}
	h := height
	if len(f.Charts) > 1 {
		h = stackHeight
	}
	heights := make([]vg.Length, len(f.Charts))
	var total vg.Length
	for i, ch := range f.Charts {
		heights[i] = h + ch.legendHeight(width)
		total += heights[i]
	}
	var paths []string
	for _, ext := range []string{"png", "svg"} {
		path := filepath.Join(dir, f.Name+"."+ext)
		c, err := draw.NewFormattedCanvas(width, total, ext)
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", path, err)
		}
		dc := draw.New(c)
		top := dc.Max.Y
		for i, ch := range f.Charts {
			tile := dc
			tile.Max.Y, tile.Min.Y = top, top-heights[i]
			ch.draw(tile)
			top -= heights[i]
		}
		file, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		_, err = c.WriteTo(file)
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

// newChart returns a chart with the axes a describes and a grid.
func newChart(a Axes) *Chart {
	p := plot.New()
	p.Title.Text = a.Title
	p.X.Label.Text = a.X
	p.Y.Label.Text = a.Y
	p.X.Tick.Marker = linearTicks{}
	p.Y.Tick.Marker = linearTicks{}
	if a.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if a.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if a.ReverseX {
		p.X.Scale = plot.InvertedScale{Normalizer: p.X.Scale}
	}
	grid := plotter.NewGrid()
	p.Add(grid)
	return &Chart{Plot: p, grid: grid}
}

// draw draws the chart into c: the plot above, its legend below, and the
// value axis's label at the left. The chart draws that label itself:
// gonum places it by the middle of the axis's values, which on a
// logarithmic axis is near the top, and pads the plot to fit it there.
func (ch *Chart) draw(c draw.Canvas) {
	p := ch.Plot
	label := p.Y.Label.Text
	p.Y.Label.Text = ""
	defer func() { p.Y.Label.Text = label }()
	sty := p.Y.Label.TextStyle
	sty.Rotation, sty.XAlign = math.Pi/2, draw.XCenter
	left := margin
	if label != "" {
		left += sty.Height(label) + margin
	}
	lh := ch.legendHeight(c.Size().X)
	pc := draw.Crop(c, left, -margin, max(lh, margin), -margin)
	ch.padBars(pc)
	p.Draw(pc)
	if label != "" {
		dc := p.DataCanvas(pc)
		mid := dc.Center().Y
		c.FillText(sty, vg.Point{X: c.Min.X + margin + sty.Height(label), Y: mid}, label)
	}
	strip := c
	strip.Max.Y = c.Min.Y + lh
	ch.drawLegend(strip)
}

// padBars leaves room between a bar chart's value axis and its bars for
// the part of the first group's label that overhangs the group's left
// edge, if any. (gonum's NominalX leaves half the label's width, a wide
// gap where a group is wider than its label.)
func (ch *Chart) padBars(c draw.Canvas) {
	if len(ch.groups) == 0 {
		return
	}
	p := ch.Plot
	half := p.X.Tick.Label.Width(ch.groups[0]) / 2
	p.Y.Padding = 0
	for range 2 { // the padding narrows the groups a little: settle it
		group := p.DataCanvas(c).Size().X / vg.Length(len(ch.groups))
		p.Y.Padding = max(0, half-group/2) + vg.Points(5)
	}
}

// fromZero starts the value axis at zero, unless it is logarithmic, where
// it starts a little below its minimum; and leaves room above the largest
// value, a fraction head of the axis.
func (ch *Chart) fromZero(head float64) {
	p := ch.Plot
	if _, log := p.Y.Scale.(plot.LogScale); log {
		lo, hi := math.Log(p.Y.Min/1.2), math.Log(p.Y.Max)
		p.Y.Min, p.Y.Max = math.Exp(lo), math.Exp(hi+(hi-lo)*head)
		return
	}
	p.Y.Min = 0
	p.Y.Max *= 1 + head
}
