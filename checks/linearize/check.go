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

// A Result is the outcome of a check.
type Result struct {
	Verdict porcupine.CheckResult
	Ops     int
	Took    time.Duration
	HTML    string // where the visualization was written, for a violation
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
		if r.HTML == "" {
			return fmt.Sprintf("history of %d operations is not linearizable", r.Ops)
		}
		return fmt.Sprintf("history of %d operations is not linearizable; visualization: %s", r.Ops, r.HTML)
	default:
		return fmt.Sprintf("linearizability check of %d operations timed out after %v: the result is unknown, which is not a pass (make the history smaller)", r.Ops, r.Took)
	}
}

// Check checks ops against model within timeout (wall time). On a
// violation it writes porcupine's visualization, with the faults marked,
// to dir/name.html (dir is created) and records the path in the report;
// with dir "" it writes none.
func Check(model porcupine.Model, ops []porcupine.Operation, faults fault.Log, timeout time.Duration, dir, name string) (Result, error) {
	start := time.Now()
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	r := Result{Verdict: res, Ops: len(ops), Took: time.Since(start)}
	if res != porcupine.Illegal {
		return r, nil
	}
	var notes []porcupine.Annotation
	for _, e := range faults {
		notes = append(notes, porcupine.Annotation{Tag: "faults", Start: int64(e.At), Description: e.Describe(), BackgroundColor: "#ffd7d7"})
	}
	info.AddAnnotations(notes)
	if dir == "" {
		return r, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	r.HTML = filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".html")
	return r, porcupine.VisualizePath(model, info, r.HTML)
}
