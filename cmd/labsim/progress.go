package main

import (
	"fmt"
	"io"
	"strings"
)

// progress draws a one-line progress bar.
type progress struct {
	out         io.Writer
	what        string
	total, done int
	failed      int
	last        string
}

func newProgress(out io.Writer, what string, total int) *progress {
	p := &progress{out: out, what: what, total: total}
	p.draw()
	return p
}

// set redraws the bar with done items finished, failed of them failing,
// the latest named last.
func (p *progress) set(done, failed int, last string) {
	p.done, p.failed, p.last = done, failed, last
	p.draw()
}

func (p *progress) draw() {
	const width = 30
	filled := width * p.done / max(1, p.total)
	fmt.Fprintf(p.out, "\r%s [%s%s] %d/%d", p.what, strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.done, p.total)
	if p.failed > 0 {
		fmt.Fprintf(p.out, ", %d failing", p.failed)
	}
	if p.last != "" {
		fmt.Fprintf(p.out, " (%s)", p.last)
	}
	fmt.Fprint(p.out, "\033[K")
}

func (p *progress) finish() { fmt.Fprintln(p.out) }
