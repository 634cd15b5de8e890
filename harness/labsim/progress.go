package labsim

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// progress shows how far a long command has got: the work done, failures,
// the time taken, an estimate of the time left if the pieces of work take
// about as long as each other, and what is running.
// On a terminal it is one line, redrawn in place every second and at
// every change; elsewhere (a file, a CI log) it is plain lines, with no
// carriage returns or escape codes: one when a piece of work starts, one
// at each tenth of the work, and one at least every minute. Nothing shows
// before the env's quiet time has passed, so short commands stay silent.
type progress struct {
	w     io.Writer
	tty   bool
	what  string // the command or scenario
	unit  string // "seeds", "experiments"; "" shows a percentage
	total int
	even  bool // the pieces of work take about as long: estimate the time left
	quiet time.Duration
	start time.Time

	mu      sync.Mutex
	done    int
	failed  int
	running []string
	drawn   string    // the terminal line showing, "" if none
	tenth   int       // the tenth of the work last reported on a plain line
	printed time.Time // when the last plain line was printed
	stop    chan struct{}
	stopped chan struct{}
}

// newProgress starts showing the progress of total pieces of work, with
// an estimate of the time left if they are even (take about as long as
// each other).
func newProgress(e *env, what, unit string, total int, even bool) *progress {
	p := &progress{w: e.stderr, tty: e.tty, what: what, unit: unit, total: total, even: even, quiet: e.quiet,
		start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	go p.tick()
	return p
}

// tick shows the progress every second, so that the time taken moves on
// a terminal and a plain line appears once the quiet time is over.
func (p *progress) tick() {
	defer close(p.stopped)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.show(false)
			p.mu.Unlock()
		}
	}
}

// begin notes that the piece of work called name has started.
func (p *progress) begin(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, name)
	p.show(true)
}

// end notes that the piece of work called name has finished, and whether
// it failed.
func (p *progress) end(name string, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.running, name); i >= 0 {
		p.running = slices.Delete(p.running, i, i+1)
	}
	p.done++
	if failed {
		p.failed++
	}
	p.show(false)
}

// set notes that done pieces of work have finished, failed of them
// failing.
func (p *progress) set(done, failed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.failed = done, failed
	p.show(false)
}

// finish stops showing progress and clears a terminal line.
func (p *progress) finish() {
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn != "" {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// show draws the line on a terminal; elsewhere it prints it if started is
// true, at a new tenth of the work, or a minute after the last line. The
// caller holds p.mu.
func (p *progress) show(started bool) {
	now := time.Now()
	elapsed := now.Sub(p.start)
	if elapsed < p.quiet {
		return
	}
	if p.tty {
		if line := p.line(elapsed, true); line != p.drawn {
			fmt.Fprintf(p.w, "\r%s\033[K", line)
			p.drawn = line
		}
		return
	}
	tenth := 10 * p.done / max(1, p.total)
	if started || tenth > p.tenth || p.printed.IsZero() || now.Sub(p.printed) >= time.Minute {
		fmt.Fprintln(p.w, p.line(elapsed, false))
		p.tenth, p.printed = tenth, now
	}
}

// line describes the progress after elapsed, with a bar if on a terminal.
func (p *progress) line(elapsed time.Duration, bar bool) string {
	var b strings.Builder
	b.WriteString(p.what)
	if bar && p.total > 1 {
		const n = 30
		filled := n * p.done / p.total
		fmt.Fprintf(&b, " [%s%s] ", strings.Repeat("#", filled), strings.Repeat(".", n-filled))
	} else {
		b.WriteString(": ")
	}
	if p.unit == "" {
		fmt.Fprintf(&b, "%d%%", 100*p.done/max(1, p.total))
	} else {
		fmt.Fprintf(&b, "%d/%d %s", p.done, p.total, p.unit)
	}
	if p.failed > 0 {
		fmt.Fprintf(&b, ", %d failing", p.failed)
	}
	fmt.Fprintf(&b, ", %s elapsed", roughDuration(elapsed))
	if left, ok := timeLeft(elapsed, p.done, p.total); ok && p.even && left >= time.Second/2 {
		fmt.Fprintf(&b, ", about %s left", roughDuration(left))
	}
	if len(p.running) > 0 {
		fmt.Fprintf(&b, "; running %s", strings.Join(p.running, ", "))
	}
	return b.String()
}

// timeLeft estimates the time the rest of total pieces of work will take,
// if done of them took elapsed, and reports whether it can.
func timeLeft(elapsed time.Duration, done, total int) (time.Duration, bool) {
	if done <= 0 || done >= total {
		return 0, false
	}
	return time.Duration(float64(elapsed) * float64(total-done) / float64(done)), true
}

// roughDuration writes d to the second, as 7s, 3m05s or 2h10m.
func roughDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
}
