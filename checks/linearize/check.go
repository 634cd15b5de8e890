package linearize

import (
	"fmt"
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
	// PartName describes the partition an input falls in, as a Result
	// reports it (KVModel: `key "x"`). If nil, a partition is described by
	// its place in the model's partitioning, "partition 3".
	PartName func(input any) string
}

// A Result is the outcome of a check.
type Result struct {
	Verdict porcupine.CheckResult
	Ops     int
	Took    time.Duration
	Timeout time.Duration // the budget the check was given (0: none)
	// Violation names, for Illegal, the partition found not linearizable.
	// The check stops at the first it finds: when there are several, which
	// it names may differ from run to run.
	Violation string
	// Unfinished names, for Unknown, the partitions whose check ran out of
	// time, in the model's partition order.
	Unfinished []string
	HTML       string // where the visualization was written, for a violation
}

// OK reports whether the history is linearizable. A check that timed out
// (porcupine.Unknown) is not OK.
func (r Result) OK() bool { return r.Verdict == porcupine.Ok }

// Problem describes a failed check in one line, or returns "" if it passed.
func (r Result) Problem() string {
	switch r.Verdict {
	case porcupine.Ok:
		return ""
	case porcupine.Illegal:
		s := fmt.Sprintf("history of %d operations is not linearizable (%s)", r.Ops, r.Violation)
		if r.HTML != "" {
			s += "; visualization: " + r.HTML
		}
		return s
	default:
		return fmt.Sprintf("linearizability check of %d operations ran out of its %v (took %v) on %s: the result is unknown, which is not a pass (make the history smaller)",
			r.Ops, r.Timeout, r.Took.Round(time.Millisecond), strings.Join(r.Unfinished, ", "))
	}
}

// Check checks ops against model within timeout (wall time; 0 is no
// limit), each partition in parallel, and stops at the first violation it
// finds. Only then does it search again, verbosely, the failing partition
// alone, to draw it with porcupine's visualization and the faults marked,
// in dir/name.html (dir is created; the drawing gets its own timeout).
// With dir "" it draws nothing.
func Check(model Model, ops []porcupine.Operation, faults fault.Log, timeout time.Duration, dir, name string) (Result, error) {
	if timeout < 0 {
		return Result{}, fmt.Errorf("linearize: timeout %v is negative", timeout)
	}
	start := time.Now()
	parts := [][]porcupine.Operation{ops}
	if model.Partition != nil {
		parts = model.Partition(ops)
	}
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
		if dir != "" {
			r.HTML, err = draw(single, parts[failed], faults, timeout, dir, name)
		}
	}
	r.Took = time.Since(start)
	return r, err
}

// draw searches ops (one partition) again, verbosely, within timeout, and
// writes porcupine's visualization of it, with faults marked, to
// dir/name.html. It returns the file's path.
func draw(model porcupine.Model, ops []porcupine.Operation, faults fault.Log, timeout time.Duration, dir, name string) (string, error) {
	_, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
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
