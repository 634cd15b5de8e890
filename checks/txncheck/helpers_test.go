package txncheck

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ms is a virtual time in milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// committed returns a transaction of process p that committed, running
// from ms(from) to ms(to).
func committed(p, from, to int, ops ...Op) Txn {
	return Txn{Process: p, Invoke: ms(from), Complete: ms(to), Outcome: OK, Ops: ops}
}

// aborted returns a transaction of process p known to have aborted.
func aborted(p, from, to int, ops ...Op) Txn {
	return Txn{Process: p, Invoke: ms(from), Complete: ms(to), Outcome: Fail, Ops: ops}
}

// timedOut returns a transaction of process p, begun at ms(from), whose
// outcome is unknown.
func timedOut(p, from int, ops ...Op) Txn {
	return Txn{Process: p, Invoke: ms(from), Outcome: Unknown, Ops: ops}
}

// history returns a history of txns, T0, T1, … in order.
func history(txns ...Txn) *History {
	h := &History{}
	for _, t := range txns {
		h.Add(t)
	}
	return h
}

// check checks h under m, failing the test on an error.
func check(t *testing.T, h *History, m Model) *Result {
	t.Helper()
	r, err := Check(h, m)
	require.NoError(t, err)
	return r
}

// writePage writes r's page into the test's temporary directory and returns a
// line naming it, for a failure message.
func writePage(t *testing.T, r *Result, name string) string {
	t.Helper()
	path, err := r.WriteHTML(t.TempDir(), name, nil)
	if err != nil {
		return fmt.Sprintf("(no visualization: %v)", err)
	}
	return "visualization: " + path
}

// types returns the anomaly types found, in order, without repeats.
func types(r *Result) []AnomalyType {
	var out []AnomalyType
	for _, a := range r.Anomalies {
		if len(out) == 0 || out[len(out)-1] != a.Type {
			out = append(out, a.Type)
		}
	}
	return out
}

// shape returns a cycle's transactions and the reasons between them.
func shape(a Anomaly) ([]int, []Dep) {
	var deps []Dep
	for _, s := range a.Steps {
		deps = append(deps, s.Dep)
	}
	return a.Txns, deps
}
