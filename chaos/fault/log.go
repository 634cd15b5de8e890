package fault

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// An Event is one line of a fault log: a fault and when it was applied.
type Event struct {
	At    time.Duration // virtual time
	Fault Fault
	Host  string // the name of the host Fault.Host denotes, for kinds that have one
	Text  string // the fault as the log prints it, hosts named
}

// String formats the entry as a line of the log prints it (without
// newline): its virtual time to the microsecond, right-aligned, then the
// fault.
func (e Event) String() string {
	return fmt.Sprintf("%12v  %s", e.At.Round(time.Microsecond), e.Describe())
}

// Describe returns the fault as the log prints it: Text, or where that is
// empty, the fault with hosts named by index.
func (e Event) Describe() string {
	if e.Text == "" {
		return e.Fault.String()
	}
	return e.Text
}

// A Log is the faults applied to a run, in the order they were applied.
type Log []Event

// String formats the log, a line per fault, or "(no faults)".
func (l Log) String() string {
	if len(l) == 0 {
		return "(no faults)\n"
	}
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Shift returns a copy of the log with every time moved by d (to make times
// relative to the start of a measurement, say).
func (l Log) Shift(d time.Duration) Log {
	out := make(Log, len(l))
	for i, e := range l {
		e.At += d
		out[i] = e
	}
	return out
}

// An Interval is a stretch of virtual time during which a fault lasted.
type Interval struct {
	Start, End time.Duration
	Label      string // "partition", "<host> down", or a network mode: "unreliable", "delay rule: <name>"
}

// Intervals turns the log into the intervals a figure shades or a history
// view overlays. The link faults make one interval, "partition", from the
// first partition, bridge, isolation or cut until none is in force (a heal,
// or the rejoin or uncut that lifts the last); a kill lasts until the host
// restarts ("<host> down"); a network mode lasts from when it is switched
// on until it is switched off ("unreliable", "reordering", "long delays",
// "duplication", "delay rule: <name>"). Whatever is still on at end lasts
// until end. Intervals come in the order they ended; those still on at end
// come last, the partition first, the rest in the order they began.
func (l Log) Intervals(end time.Duration) []Interval {
	var s spans
	var links linkFaults
	for _, e := range l {
		f := e.Fault
		switch f.Kind {
		case Heal, Partition, Bridge, Isolate, Cut, Rejoin, Uncut:
			links.apply(f)
			s.set("links", "partition", links.inForce(), e.At)
		case Kill, Restart:
			label := e.Host + " down"
			if e.Host == "" {
				label = fmt.Sprintf("host %d down", f.Host)
			}
			s.set(fmt.Sprint("host ", f.Host), label, f.Kind == Kill, e.At)
		case Unreliable, Reordering, LongDelays:
			s.set(f.Kind.String(), f.Kind.String(), f.On, e.At)
		case Duplicate:
			s.set("duplication", "duplication", f.Rate > 0, e.At)
		case DelayRule:
			s.set("delay rule", "delay rule: "+f.Name, f.Name != "", e.At)
		}
	}
	return s.end(end)
}

// spans are the intervals of a log: those that ended, and those open, by
// key, in the order they began.
type spans struct {
	done []Interval
	open []span
}

type span struct {
	key   string
	label string
	start time.Duration
}

// set opens the interval key (labelled label) at at if on, or closes it if
// not. An interval open under another label is closed and opened anew (a
// new delay rule); one open under the same label goes on (a host killed
// twice is down since the first kill).
func (s *spans) set(key, label string, on bool, at time.Duration) {
	i := slices.IndexFunc(s.open, func(o span) bool { return o.key == key })
	if i >= 0 && (!on || s.open[i].label != label) {
		s.done = append(s.done, Interval{Start: s.open[i].start, End: at, Label: s.open[i].label})
		s.open = slices.Delete(s.open, i, i+1)
		i = -1
	}
	if on && i < 0 {
		s.open = append(s.open, span{key: key, label: label, start: at})
	}
}

// end returns the intervals, those still open lasting until end.
func (s *spans) end(end time.Duration) []Interval {
	out := s.done
	for _, links := range []bool{true, false} {
		for _, o := range s.open {
			if (o.key == "links") == links {
				out = append(out, Interval{Start: o.start, End: end, Label: o.label})
			}
		}
	}
	return out
}

// linkFaults are the link faults in force, as a log shows them.
type linkFaults struct {
	split    bool // a partition or bridge
	isolated map[int]bool
	cut      map[[2]int]bool
}

// apply adds f's effect on the link faults in force.
func (l *linkFaults) apply(f Fault) {
	if l.isolated == nil {
		l.isolated, l.cut = map[int]bool{}, map[[2]int]bool{}
	}
	switch f.Kind {
	case Heal, Partition, Bridge:
		l.split = f.Kind != Heal
		clear(l.isolated)
		clear(l.cut)
	case Isolate:
		l.isolated[f.Host] = true
	case Rejoin:
		delete(l.isolated, f.Host)
	case Cut:
		l.cut[[2]int{f.Host, f.To}] = true
	case Uncut:
		delete(l.cut, [2]int{f.Host, f.To})
	}
}

// inForce reports whether any link fault is in force.
func (l *linkFaults) inForce() bool { return l.split || len(l.isolated) > 0 || len(l.cut) > 0 }
