package linearize

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// checkParts checks each of parts against model (which does not
// partition) within timeout (NoTimeout: no limit): a part whose operations
// never overlap by replaying them in order, the others each with
// porcupine, on as many goroutines as there are processors, smallest part
// first (ties in the parts' order). It returns the index of the first
// part, in that order, that is not linearizable, or, if there is none, -1
// and the indices of the parts whose check ran out of time, in order. Once
// a part is found not linearizable, the parts after it in that order are
// stopped, so that the verdict costs about what it takes to find the
// violation, and those before it are checked to their end, so that which
// part is named does not depend on which goroutine got there first.
func checkParts(model porcupine.Model, parts [][]porcupine.Operation, timeout time.Duration) (failed int, unfinished []int) {
	ctx := context.Background()
	if timeout != NoTimeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	// Smallest first: a short history is quick to search, so a violation
	// in one is found, and the others stopped, soonest.
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(parts[a]) - len(parts[b]) })
	verdicts := make([]porcupine.CheckResult, len(parts))
	var next atomic.Int64
	var best atomic.Int64 // the position in order of the first part found not linearizable
	best.Store(int64(len(order)))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := next.Add(1) - 1; n < best.Load(); n = next.Add(1) - 1 {
				i := order[n]
				m := stoppable(model, func() bool { return best.Load() < n })
				if sequential(parts[i]) {
					verdicts[i] = replay(ctx, m, parts[i])
				} else {
					verdicts[i] = search(ctx, m, parts[i])
				}
				// An Illegal found before any part ahead of it in order
				// was: nothing stopped it. One found after may be the
				// stop's doing, and is not counted.
				for b := best.Load(); verdicts[i] == porcupine.Illegal && n < b && !best.CompareAndSwap(b, n); b = best.Load() {
				}
			}
		}()
	}
	wg.Wait()
	if n := best.Load(); n < int64(len(order)) {
		return order[n], nil
	}
	for i, v := range verdicts {
		if v == porcupine.Unknown {
			unfinished = append(unfinished, i)
		}
	}
	return -1, unfinished
}

// sequential reports whether each of ops returned before the next was
// called, so that their order is the only linearization there is.
func sequential(ops []porcupine.Operation) bool {
	for i := 1; i < len(ops); i++ {
		if ops[i-1].Return >= ops[i].Call {
			return false
		}
	}
	return true
}

// replay checks sequential ops against model in their order, without a
// search, until ctx is done.
func replay(ctx context.Context, model porcupine.Model, ops []porcupine.Operation) porcupine.CheckResult {
	step, state := stepper(model), model.Init()
	for _, op := range ops {
		var ok bool
		ok, state = step(ctx, state, op.Input, op.Output)
		switch {
		case ctx.Err() != nil:
			return porcupine.Unknown
		case !ok:
			return porcupine.Illegal
		}
	}
	return porcupine.Ok
}

// stepper returns model's step, StepContext if it has one, Step if not.
func stepper(model porcupine.Model) func(ctx context.Context, state, input, output any) (bool, any) {
	if model.StepContext != nil {
		return model.StepContext
	}
	return func(_ context.Context, state, input, output any) (bool, any) { return model.Step(state, input, output) }
}

// search checks ops against model with porcupine until ctx is done.
func search(ctx context.Context, model porcupine.Model, ops []porcupine.Operation) porcupine.CheckResult {
	deadline, limited := ctx.Deadline()
	if !limited {
		return porcupine.CheckOperationsTimeout(model, ops, 0)
	}
	left := time.Until(deadline)
	if left <= 0 {
		return porcupine.Unknown
	}
	return porcupine.CheckOperationsTimeout(model, ops, left)
}

// stoppable returns model whose every step fails once stopped says so,
// which soon ends porcupine's search (in a verdict to ignore).
func stoppable(model porcupine.Model, stopped func() bool) porcupine.Model {
	if step := model.StepContext; step != nil {
		model.StepContext = func(ctx context.Context, state, input, output any) (bool, any) {
			if stopped() {
				return false, state
			}
			return step(ctx, state, input, output)
		}
		return model
	}
	step := model.Step
	model.Step = func(state, input, output any) (bool, any) {
		if stopped() {
			return false, state
		}
		return step(state, input, output)
	}
	return model
}
