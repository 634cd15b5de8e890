package plots

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
)

// FaultIntervals turns a chaos fault log into the intervals a time series
// shades: a partition, isolation or cut lasts until the next heal, a kill
// until the host restarts; whatever is still on at end lasts until end.
// Times are in seconds.
func FaultIntervals(log []chaos.Entry, end time.Duration) []Interval {
	var out []Interval
	cutSince := time.Duration(-1)
	downSince := map[int]time.Duration{}
	var downOrder []int // hosts in the order they died, for a stable output
	for _, e := range log {
		switch e.Fault.Kind {
		case chaos.Partition, chaos.Isolate, chaos.Cut:
			if cutSince < 0 {
				cutSince = e.At
			}
		case chaos.Heal:
			if cutSince >= 0 {
				out = append(out, Interval{Start: cutSince.Seconds(), End: e.At.Seconds(), Label: "partition"})
				cutSince = -1
			}
		case chaos.Kill:
			if _, ok := downSince[e.Fault.Host]; !ok {
				downSince[e.Fault.Host] = e.At
				downOrder = append(downOrder, e.Fault.Host)
			}
		case chaos.Restart:
			if at, ok := downSince[e.Fault.Host]; ok {
				out = append(out, Interval{Start: at.Seconds(), End: e.At.Seconds(), Label: fmt.Sprintf("server %d down", e.Fault.Host)})
				delete(downSince, e.Fault.Host)
			}
		}
	}
	if cutSince >= 0 {
		out = append(out, Interval{Start: cutSince.Seconds(), End: end.Seconds(), Label: "partition"})
	}
	for _, h := range downOrder {
		if at, ok := downSince[h]; ok {
			out = append(out, Interval{Start: at.Seconds(), End: end.Seconds(), Label: fmt.Sprintf("server %d down", h)})
		}
	}
	return out
}
