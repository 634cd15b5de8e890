package linearize

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// checkParts checks each of parts against model (which does not
// partition), each in its own goroutine, within timeout (0: no limit). It
// returns the index of the first part found not linearizable, at which it
// stops the others, so that the verdict costs about what it takes to find
// the violation; or, if there is none, -1 and the indices of the parts
// whose check ran out of time, in order. When several parts are not
// linearizable, which is found first may differ from run to run.
func checkParts(model porcupine.Model, parts [][]porcupine.Operation, timeout time.Duration) (failed int, unfinished []int) {
	var stop atomic.Bool
	model = stoppable(model, stop.Load)
	verdicts := make([]porcupine.CheckResult, len(parts))
	done := make(chan int, len(parts))
	for i, part := range parts {
		go func() {
			verdicts[i] = porcupine.CheckOperationsTimeout(model, part, timeout)
			done <- i
		}()
	}
	failed = -1
	for range parts {
		// The first Illegal to arrive was found before anything was
		// stopped: it is real. Those after it need not be.
		if i := <-done; verdicts[i] == porcupine.Illegal && !stop.Load() {
			failed = i
			stop.Store(true)
		}
	}
	if failed >= 0 {
		return failed, nil
	}
	for i, v := range verdicts {
		if v == porcupine.Unknown {
			unfinished = append(unfinished, i)
		}
	}
	return -1, unfinished
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
