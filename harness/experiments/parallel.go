package experiments

import (
	"errors"
	"runtime"
	"sync"
)

// parallel runs f(0), ..., f(n-1), as many at once as there are CPUs: each
// builds a world of its own, so they share nothing, and each writes only
// its own slot of the caller's results. It returns the first error by
// index.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
