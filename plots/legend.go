package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A legendEntry is a name and the thumbnails drawn beside it.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// Legend layout, in points.
const (
	thumbWidth vg.Length = 20
	legendGap  vg.Length = 12 // between entries
	legendPad  vg.Length = 4  // between rows, and around the strip
)

// addLegend adds an entry to the chart's legend.
func (ch *Chart) addLegend(name string, thumbs ...plot.Thumbnailer) {
	ch.legend = append(ch.legend, legendEntry{name, thumbs})
}

// legendStyle is the legend's text style.
func legendStyle() draw.TextStyle {
	sty := plot.NewLegend().TextStyle
	sty.YAlign = draw.YCenter
	return sty
}

// legendRows lays the entries out in rows that fit width, and returns
// the entries of each row.
func (ch *Chart) legendRows(width vg.Length) [][]legendEntry {
	sty := legendStyle()
	var rows [][]legendEntry
	var used vg.Length
	for _, e := range ch.legend {
		w := entryWidth(sty, e)
		if len(rows) == 0 || used+legendGap+w > width-2*legendPad {
			rows = append(rows, nil)
			used = -legendGap
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], e)
		used += legendGap + w
	}
	return rows
}

func entryWidth(sty draw.TextStyle, e legendEntry) vg.Length {
	return thumbWidth + sty.Width(" ") + sty.Width(e.name)
}

// rowHeight is the height of one row of the legend.
func rowHeight() vg.Length { return legendStyle().Height("Mg") + legendPad }

// legendHeight is the height of the legend's strip at the given width, 0
// if the chart has no legend.
func (ch *Chart) legendHeight(width vg.Length) vg.Length {
	rows := ch.legendRows(width)
	if len(rows) == 0 {
		return 0
	}
	return vg.Length(len(rows))*rowHeight() + 2*legendPad
}

// drawLegend draws the legend into the strip c, each row centred.
func (ch *Chart) drawLegend(c draw.Canvas) {
	sty := legendStyle()
	rh := rowHeight()
	y := c.Max.Y - legendPad
	for _, row := range ch.legendRows(c.Size().X) {
		var w vg.Length
		for i, e := range row {
			if i > 0 {
				w += legendGap
			}
			w += entryWidth(sty, e)
		}
		x := c.Min.X + (c.Size().X-w)/2
		for _, e := range row {
			icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - rh + legendPad/2},
				Max: vg.Point{X: x + thumbWidth, Y: y - legendPad/2},
			}}
			for _, t := range e.thumbs {
				t.Thumbnail(&icon)
			}
			c.FillText(sty, vg.Point{X: x + thumbWidth + sty.Width(" "), Y: y - rh/2}, e.name)
			x += entryWidth(sty, e) + legendGap
		}
		y -= rh
	}
}
