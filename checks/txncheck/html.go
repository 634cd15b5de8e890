package txncheck

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replab/replab/chaos/fault"
)

// drawnPerType caps the anomalies of one type a page draws; the rest are
// listed.
const drawnPerType = 3

// WriteHTML writes the page HTML draws to dir/name.html (creating dir)
// and returns its path.
func (r *Result) WriteHTML(dir, name string, faults []fault.Interval) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".html")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	err = r.HTML(w, faults)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// HTML writes a self-contained page (inline SVG, no script) that explains
// the result: for each anomaly, its transactions as bars on a time axis,
// with a cycle's edges as labelled arrows and the faults shaded behind,
// then the explanation step by step.
func (r *Result) HTML(w io.Writer, faults []fault.Interval) error {
	p := &page{w: w}
	title := fmt.Sprintf("%v under %s", r.Verdict, r.under())
	p.printf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>txncheck: %s</title>\n<style>%s</style></head><body>\n", esc(title), pageStyle)
	p.printf("<h1>%s</h1>\n<p>%d transactions", esc(title), len(r.txns))
	if r.Weakest != 0 {
		p.printf("; weakest model violated: <b>%v</b>", r.Weakest)
	}
	if r.Note != "" {
		p.printf("; %s", esc(r.Note))
	}
	p.printf(".</p>\n")
	if len(r.Anomalies) > 0 {
		p.printf("<p>")
		for t := range numAnomalyTypes {
			if n := r.Count(t); n > 0 {
				p.printf("<span class=\"count\">%v × %d</span> ", t, n)
			}
		}
		p.printf("</p>\n")
	}
	p.legend()
	for i := 0; i < len(r.Anomalies); {
		t := r.Anomalies[i].Type
		j := i
		for j < len(r.Anomalies) && r.Anomalies[j].Type == t {
			j++
		}
		p.group(r.txns, r.Anomalies[i:j], faults)
		i = j
	}
	if len(faults) > 0 {
		p.printf("<h2>Faults</h2>\n<ul>\n")
		for _, f := range faults {
			p.printf("<li>%v – %v: %s</li>\n", f.Start, f.End, esc(f.Label))
		}
		p.printf("</ul>\n")
	}
	p.printf("</body></html>\n")
	return p.err
}

const pageStyle = `body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em;font-family:monospace;border-bottom:1px solid #ddd}h3{font-size:1em;font-family:monospace}
.count{background:#fde2e2;border-radius:4px;padding:2px 6px;margin-right:4px;font-family:monospace}
ol,ul{font-family:monospace;line-height:1.6}
li.ww{color:#1f5fa8}li.wr{color:#1d7a3a}li.rw{color:#c0392b}li.process{color:#7d4fa8}li.realtime{color:#a8761f}
svg text{font:12px monospace;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}`

// deps are the kinds of edge, in the order the legend shows them.
var deps = []Dep{WW, WR, RW, Proc, RT}

// depColor is the color of each kind of edge.
var depColor = map[Dep]string{WW: "#1f5fa8", WR: "#1d7a3a", RW: "#c0392b", Proc: "#7d4fa8", RT: "#a8761f"}

// A page writes HTML, keeping the first error.
type page struct {
	w   io.Writer
	err error
}

func (p *page) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func esc(s string) string { return html.EscapeString(s) }

// group draws the first few anomalies of one type and lists the rest.
func (p *page) group(txns []Txn, as []Anomaly, faults []fault.Interval) {
	p.printf("<h2>%v × %d</h2>\n", as[0].Type, len(as))
	for i, a := range as {
		if i == drawnPerType {
			p.printf("<details><summary>%d more</summary>\n<ul>\n", len(as)-drawnPerType)
			for _, a := range as[drawnPerType:] {
				p.printf("<li>%s</li>\n", esc(a.Text))
			}
			p.printf("</ul></details>\n")
			return
		}
		p.printf("<h3>%s</h3>\n", esc(a.Text))
		p.drawAnomaly(txns, a, faults)
		if len(a.Steps) > 0 {
			p.printf("<ol>\n")
			for _, s := range a.Steps {
				p.printf("<li class=\"%v\">%s</li>\n", s.Dep, esc(s.Text))
			}
			p.printf("</ol>\n")
		}
	}
}

// legend explains the colors.
func (p *page) legend() {
	p.printf("<p>")
	for _, d := range deps {
		p.printf("<span style=\"color:%s\">→ %v</span> &nbsp; ", depColor[d], d)
	}
	p.printf("&nbsp; bars: committed <span style=\"color:#4a7ab0\">■</span>, aborted <span style=\"color:#999\">■</span>, unknown outcome <span style=\"color:#bbb\">▭</span> (its bar runs to the right edge); faults shaded <span style=\"color:#f4c7c7\">■</span></p>\n")
}

// Geometry of a drawing.
const (
	svgWidth  = 1060
	labelW    = 110 // the transaction names on the left
	arcW      = 150 // room on the right for edges that go back up
	rowH      = 46
	barH      = 16
	axisH     = 30
	maxRows   = 60
	textLimit = 90  // characters of ops shown on a bar, at most
	charW     = 7.3 // the width of a character, in pixels
)

// drawAnomaly draws the anomaly's transactions, one row each in the
// anomaly's order, on a time axis, with the cycle's edges between them.
func (p *page) drawAnomaly(txns []Txn, a Anomaly, faults []fault.Interval) {
	if len(a.Txns) == 0 {
		return
	}
	if len(a.Txns) > maxRows {
		p.printf("<p>(%d transactions: too many to draw)</p>\n", len(a.Txns))
		return
	}
	row := make(map[int]int, len(a.Txns))
	lo, hi := time.Duration(-1), time.Duration(0)
	for i, id := range a.Txns {
		row[id] = i
		t := txns[id]
		if lo < 0 || t.Invoke < lo {
			lo = t.Invoke
		}
		hi = max(hi, t.Invoke)
		if t.Outcome != Unknown {
			hi = max(hi, t.Complete)
		}
	}
	if hi <= lo { // all at one instant: a millisecond's axis from it
		hi = lo + time.Millisecond
	}
	span := hi - lo
	lo -= span / 20
	hi += span / 20
	x0, x1 := float64(labelW), float64(svgWidth-arcW)
	x := func(t time.Duration) float64 {
		return x0 + (x1-x0)*float64(t-lo)/float64(hi-lo)
	}
	height := axisH + rowH*len(a.Txns) + 16 // a strip below for the faults' labels
	p.printf("<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" style=\"max-width:100%%;height:auto\" xmlns=\"http://www.w3.org/2000/svg\">\n", svgWidth, height, svgWidth, height)
	p.printf("<defs>")
	for _, d := range deps {
		c := depColor[d]
		p.printf("<marker id=\"arrow-%v\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>", d, c)
	}
	p.printf("</defs>\n")
	for _, f := range faults {
		if f.End <= lo || f.Start >= hi {
			continue
		}
		fx0, fx1 := x(max(f.Start, lo)), x(min(f.End, hi))
		p.printf("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#f4c7c7\" opacity=\"0.55\"><title>%s: %v – %v</title></rect>\n", fx0, axisH-4, fx1-fx0, height-axisH+4, esc(f.Label), f.Start, f.End)
		p.printf("<text x=\"%.1f\" y=\"%d\" fill=\"#b03a3a\">%s</text>\n", fx0+3, height-3, esc(f.Label))
	}
	p.axis(lo, hi, x, height)
	for i, id := range a.Txns {
		p.bar(txns[id], id, axisH+rowH*i, x, x1)
	}
	for _, s := range a.Steps {
		p.edge(s, row, txns, x, x1)
	}
	p.printf("</svg>\n")
}

// axis draws the time axis with a few ticks and grid lines.
func (p *page) axis(lo, hi time.Duration, x func(time.Duration) float64, height int) {
	p.printf("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", labelW, axisH-8, svgWidth-arcW, axisH-8)
	step := niceStep((hi - lo) / 6)
	for t := max(lo/step+1, 0) * step; t < hi; t += step { // virtual time starts at 0
		p.printf("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">%v</text>\n",
			x(t), axisH-8, x(t), height, x(t), axisH-13, t)
	}
}

// niceStep rounds d up to 1, 2 or 5 times a power of ten nanoseconds.
func niceStep(d time.Duration) time.Duration {
	step := time.Duration(1)
	for {
		for _, m := range []time.Duration{1, 2, 5} {
			if m*step >= d {
				return m * step
			}
		}
		step *= 10
	}
}

// bar draws one transaction at row top y.
func (p *page) bar(t Txn, id, y int, x func(time.Duration) float64, right float64) {
	bx0 := x(t.Invoke)
	bx1 := right
	fill, stroke, dash := "#4a7ab0", "#2c5282", ""
	switch t.Outcome {
	case OK:
		bx1 = x(t.Complete)
	case Fail:
		bx1 = x(t.Complete)
		fill, stroke = "#999", "#666"
	case Unknown:
		fill, stroke, dash = "#f4f4f4", "#999", " stroke-dasharray=\"4 3\""
	}
	bx1 = max(bx1, bx0+2)
	p.printf("<text x=\"4\" y=\"%d\">T%d <tspan fill=\"#888\">p%d</tspan></text>\n", y+barH-3, id, t.Process)
	p.printf("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"3\" fill=\"%s\" stroke=\"%s\"%s><title>T%d: %s</title></rect>\n",
		bx0, y, bx1-bx0, barH, fill, stroke, dash, id, esc(t.String()))
	ops := make([]string, len(t.Ops))
	for i, o := range t.Ops {
		ops[i] = o.String()
		if o.Type == OpRead && t.Outcome != OK {
			ops[i] = fmt.Sprintf("read(%d)", o.Key)
		}
	}
	text := []rune(strings.Join(ops, " "))
	if room := min(textLimit, int((svgWidth-bx0)/charW)); len(text) > room {
		text = append(text[:max(room-1, 0)], '…')
	}
	p.printf("<text x=\"%.1f\" y=\"%d\" fill=\"#333\">%s</text>\n", bx0, y+barH+12, esc(string(text)))
}

// edge draws one step of a cycle: an arrow from the bottom of one bar to
// the top of the next one down, or, for a step back up, from the right end
// of one bar round through the margin to the right end of the other.
func (p *page) edge(s Step, row map[int]int, txns []Txn, x func(time.Duration) float64, right float64) {
	span := func(id int) (float64, float64, float64) {
		t := txns[id]
		end := right
		if t.Outcome != Unknown {
			end = x(t.Complete)
		}
		return x(t.Invoke), end, float64(axisH + rowH*row[id])
	}
	fx0, fx1, fy := span(s.From)
	tx0, tx1, ty := span(s.To)
	color := depColor[s.Dep]
	var path string
	var lx, ly float64
	if row[s.To] > row[s.From] {
		ax, bx := (fx0+fx1)/2, (tx0+tx1)/2
		cx := (ax+bx)/2 + 25
		path = fmt.Sprintf("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f", ax, fy+barH, cx, (fy+barH+ty)/2, bx, ty)
		lx, ly = (ax+2*cx+bx)/4+6, (fy+barH+ty)/2
	} else {
		out := right + 30 + float64(row[s.From]-row[s.To])*10
		fm, tm := fy+barH/2, ty+barH/2
		path = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", fx1+2, fm, out, fm, out, tm, tx1+4, tm)
		lx, ly = (fx1+tx1)/8+out*0.75+4, (fm+tm)/2
	}
	p.printf("<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" marker-end=\"url(#arrow-%v)\"><title>%s</title></path>\n", path, color, s.Dep, esc(s.Text))
	p.printf("<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\">%v</text>\n", lx, ly+4, color, s.Dep)
}
