package linearize

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/replab/replab/chaos/fault"
)

// A Model is a porcupine model whose partitions have names, so that a
// Result can say where a check failed or ran out of time.
type Model struct {
	porcupine.Model
	// Partition (porcupine's) must split a history the same way each time
	// it is called: an explanation finds the operations of a partition in
	// the history by partitioning it again.
	//
	// PartName describes the partition an input falls in, as a Result
	// reports it (KVModel: `key "x"`). If nil, a partition is described by
	// its place in the model's partitioning, "partition 3".
	PartName func(input any) string
	// Validate, if not nil, says what is wrong with an operation's input
	// or output (nil: the output of one that never returned) that the
	// model cannot check, or returns nil. Check refuses a history with
	// such an operation, naming it, rather than let the model panic or
	// take it for something else.
	Validate func(input, output any) error
}

// NoTimeout, as Check's timeout, lets the check take as long as it takes.
const NoTimeout time.Duration = math.MaxInt64

// A Result is the outcome of a check.
type Result struct {
	Verdict porcupine.CheckResult
	Ops     int
	Took    time.Duration
	Timeout time.Duration // the budget the check was given (NoTimeout: none)
	// Violation names, for Illegal, the partition found not linearizable:
	// when there are several, the first in the check's order (smallest
	// first, then in the model's order), the same from run to run.
	Violation string
	// Explanation says, for Illegal, where the partition Violation names
	// stops being linearizable. It is nil if the search for it ran out of
	// time, or if Check returned an error.
	Explanation *Explanation
	// Unfinished names, for Unknown, the partitions whose check ran out of
	// time, in the model's partition order.
	Unfinished []string
	HTML       string // where the visualization was written, for a violation
}

// OK reports whether the history is linearizable. A check that timed out
// (porcupine.Unknown) is not OK.
func (r Result) OK() bool { return r.Verdict == porcupine.Ok }

// Problem describes a failed check in one line, or returns "" if it passed.
func (r Result) Problem() string { return r.ProblemAt(VirtualTime) }

// ProblemAt says what Problem says, with the operations' times as clock
// writes them (LogLines for a history ReadKVLog read).
func (r Result) ProblemAt(clock Clock) string {
	switch r.Verdict {
	case porcupine.Ok:
		return ""
	case porcupine.Illegal:
		s := fmt.Sprintf("history of %d operations is not linearizable", r.Ops)
		if r.Explanation != nil {
			s += ": " + r.Explanation.describe(clock)
		} else {
			s += fmt.Sprintf(" (%s; explaining it ran out of time)", r.Violation)
		}
		if r.HTML != "" {
			s += "; visualization: " + r.HTML
		}
		return s
	default:
		return fmt.Sprintf("linearizability check of %d operations ran out of its %v (took %v) on %s: the result is unknown, which is not a pass (make the history smaller)",
			r.Ops, r.Timeout, r.Took.Round(time.Millisecond), strings.Join(r.Unfinished, ", "))
	}
}

// Check checks ops against model within timeout (wall time, positive;
// NoTimeout for no limit), each partition in parallel, smallest first, and
// stops the partitions after the first in that order found not
// linearizable. Only then does it search again, verbosely,
// the failing partition alone (within timeout again), to explain the
// violation (Result.Explanation) and to draw it with porcupine's
// visualization and the faults marked, in dir/name.html (dir is created).
// With dir "" it draws nothing. It refuses a history with an operation
// that has no input, returns before its call, or that the model's Validate
// refuses, naming the operation.
func Check(model Model, ops []porcupine.Operation, faults fault.Log, timeout time.Duration, dir, name string) (Result, error) {
	if timeout <= 0 {
		return Result{}, fmt.Errorf("linearize: timeout %v is not positive (NoTimeout is no limit)", timeout)
	}
	if err := model.validate(ops); err != nil {
		return Result{}, err
	}
	start := time.Now()
	parts := model.parts(ops)
	single := model.Model
	single.Partition, single.PartitionEvent = nil, nil
	r := Result{Verdict: porcupine.Ok, Ops: len(ops), Timeout: timeout}
	failed, unfinished := checkParts(single, parts, timeout)
	for _, i := range unfinished {
		r.Verdict = porcupine.Unknown
		r.Unfinished = append(r.Unfinished, model.partName(parts, i))
	}
	var err error
	if failed >= 0 {
		r.Verdict, r.Violation = porcupine.Illegal, model.partName(parts, failed)
		var part []porcupine.Operation
		var index []int
		part, index, err = model.locate(ops, parts, failed)
		if err == nil {
			var info porcupine.LinearizationInfo
			r.Explanation, info = explain(single, part, index, r.Violation, timeout)
			if dir != "" {
				r.HTML, err = draw(single, info, faults, dir, name)
			}
		}
	}
	r.Took = time.Since(start)
	return r, err
}

// parts returns the model's partitions of ops.
func (m Model) parts(ops []porcupine.Operation) [][]porcupine.Operation {
	if m.Partition == nil {
		return [][]porcupine.Operation{ops}
	}
	return m.Partition(ops)
}

// validate returns an error naming the first operation of ops the model
// cannot check, or nil.
func (m Model) validate(ops []porcupine.Operation) error {
	for i, op := range ops {
		var err error
		switch {
		case op.Input == nil:
			err = errors.New("no input")
		case op.Return < op.Call:
			err = fmt.Errorf("returns at %v, before its call at %v", time.Duration(op.Return), time.Duration(op.Call))
		case m.Validate != nil:
			err = m.Validate(op.Input, op.Output)
		}
		if err != nil {
			return fmt.Errorf("linearize: operation %d (client %d): %w", i, op.ClientId, err)
		}
	}
	return nil
}

// porcupineTimeout is timeout as porcupine takes it (0: no limit).
func porcupineTimeout(timeout time.Duration) time.Duration {
	if timeout == NoTimeout {
		return 0
	}
	return timeout
}

// draw writes porcupine's visualization of info, a verbose search's, with
// faults marked, to dir/name.html. It returns the file's path.
func draw(model porcupine.Model, info porcupine.LinearizationInfo, faults fault.Log, dir, name string) (string, error) {
	var notes []porcupine.Annotation
	for _, e := range faults {
		notes = append(notes, porcupine.Annotation{Tag: "faults", Start: int64(e.At), Description: e.Describe(), BackgroundColor: "#ffd7d7"})
	}
	info.AddAnnotations(notes)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".html")
	return path, porcupine.VisualizePath(model, info, path)
}

// partName describes parts[i].
func (m Model) partName(parts [][]porcupine.Operation, i int) string {
	if m.PartName == nil || len(parts[i]) == 0 {
		return fmt.Sprintf("partition %d", i)
	}
	return m.PartName(parts[i][0].Input)
}
