package search

import (
	"sync"
	"time"
)

// This file drives worlds from outside, as a sweep does: several at once,
// each on its own goroutine, and timed on the wall clock. No code here
// runs inside a world.

// parallel runs f(0), ..., f(n-1) on workers goroutines.
func parallel(workers, n int, f func(i int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// A stopwatch times a search on the wall clock, and tells when its wall
// budget (if any) is spent.
type stopwatch struct {
	began time.Time
	limit time.Duration // 0: none
}

func startStopwatch(limit time.Duration) *stopwatch {
	return &stopwatch{began: time.Now(), limit: limit}
}

// elapsed returns the wall time since the search began.
func (s *stopwatch) elapsed() time.Duration { return time.Since(s.began) }

// expired reports whether the wall budget is spent.
func (s *stopwatch) expired() bool { return s.limit > 0 && s.elapsed() >= s.limit }
