package sim

import (
	"testing"
	"time"
)

// BenchmarkWorldTimers measures timer events per wall second: 100 hosts each
// re-arm a timer with a random delay every time it fires, the shape of a
// cluster's election and heartbeat timers.
func BenchmarkWorldTimers(b *testing.B) { benchTimers(b, nil) }

// BenchmarkWorldTimersGC is BenchmarkWorldTimers with the garbage collector
// at work, as in a sweep: every firing timer also allocates a small record
// holding a pointer, and the latest 64 Ki records stay live, so collections
// run throughout the benchmark and the write barrier is often on.
func BenchmarkWorldTimersGC(b *testing.B) {
	type record struct {
		at   time.Duration
		data []byte
	}
	live := make([]*record, 1<<16)
	n := 0
	benchTimers(b, func(w *World) {
		live[n%len(live)] = &record{at: w.Now(), data: make([]byte, 64)}
		n++
	})
}

// benchTimers runs the timers of BenchmarkWorldTimers, each doing work (if
// not nil) before it re-arms.
func benchTimers(b *testing.B, work func(w *World)) {
	w := NewWorld(1)
	hs, _ := w.NewHosts(100, "h")
	for _, h := range hs {
		var tm *Timer
		tm = h.NewTimer(func() {
			if work != nil {
				work(w)
			}
			tm.Reset(w.RandDuration(time.Millisecond, 10*time.Millisecond))
		})
		tm.Reset(w.RandDuration(0, 10*time.Millisecond))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWorldAfter measures one-shot events (a closure each) per wall second.
func BenchmarkWorldAfter(b *testing.B) {
	w := NewWorld(1)
	h := w.NewHost("h")
	var next func()
	next = func() { h.After(time.Millisecond, next) }
	for range 100 {
		h.After(w.RandDuration(0, time.Millisecond), next)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
