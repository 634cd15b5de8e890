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
// stops the others; or, if none is, -1 and the indices of the parts whose
// check ran out of time, in order.
func checkParts(model porcupine.Model, parts [][]porcupine.Operation, timeout time.Duration) (failed int, unfinished []int) {
	var stop atomic.Bool
	model = stoppable(model, &stop)
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
		// The first Illegal is the first verdict to arrive after which
		// the others are stopped: it is real, the later ones need not be.
		if i := <-done; failed < 0 && verdicts[i] == porcupine.Illegal {
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

// stoppable returns model whose every step fails once stop is set, which
// soon ends porcupine's search (in a verdict to ignore).
func stoppable(model porcupine.Model, stop *atomic.Bool) porcupine.Model {
	if step := model.StepContext; step != nil {
		model.StepContext = func(ctx context.Context, state, input, output any) (bool, any) {
			if stop.Load() {
				return false, state
			}
			return step(ctx, state, input, output)
		}
		return model
	}
	step := model.Step
	model.Step = func(state, input, output any) (bool, any) {
		if stop.Load() {
			return false, state
		}
		return step(state, input, output)
	}
	return model
}
