package fault

import (
	"fmt"
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
	Label      string // "partition", or "<host> down"
}

// Intervals turns the log into the intervals a figure shades or a history
// view overlays: a partition, bridge, isolation or cut lasts until the next heal, a
// kill until the host restarts; whatever is still on at end lasts until end.
// Intervals come in the order they ended; those still on at end come last.
func (l Log) Intervals(end time.Duration) []Interval {
	var out []Interval
	cutSince := time.Duration(-1)
	downSince := map[int]time.Duration{}
	var downOrder []int // hosts in the order they died, for a stable output
	label := func(e Event, h int) string {
		if e.Host != "" {
			return e.Host + " down"
		}
		return fmt.Sprintf("host %d down", h)
	}
	names := map[int]string{}
	for _, e := range l {
		switch e.Fault.Kind {
		case Partition, Bridge, Isolate, Cut:
			if cutSince < 0 {
				cutSince = e.At
			}
		case Heal:
			if cutSince >= 0 {
				out = append(out, Interval{Start: cutSince, End: e.At, Label: "partition"})
				cutSince = -1
			}
		case Kill:
			if _, ok := downSince[e.Fault.Host]; !ok {
				downSince[e.Fault.Host] = e.At
				downOrder = append(downOrder, e.Fault.Host)
				names[e.Fault.Host] = label(e, e.Fault.Host)
			}
		case Restart:
			if at, ok := downSince[e.Fault.Host]; ok {
				out = append(out, Interval{Start: at, End: e.At, Label: names[e.Fault.Host]})
				delete(downSince, e.Fault.Host)
			}
		}
	}
	if cutSince >= 0 {
		out = append(out, Interval{Start: cutSince, End: end, Label: "partition"})
	}
	for _, h := range downOrder {
		if at, ok := downSince[h]; ok {
			out = append(out, Interval{Start: at, End: end, Label: names[h]})
		}
	}
	return out
}
