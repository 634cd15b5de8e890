package txncheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEdgesOfTheFirstTransactionAndVersion checks the edges that start at
// transaction 0 or at the history's first version, whose index is 0 and
// so easily taken for "none".
func TestEdgesOfTheFirstTransactionAndVersion(t *testing.T) {
	// T0's append of 1 to x, then T1's 2 that no read shows: ww T0 → T1;
	// y read as [2 1]: ww T1 → T0.
	unread := history(
		committed(0, 0, 10, Append(1, 1), Append(2, 1)),
		committed(1, 0, 10, Append(1, 2), Append(2, 2)),
		committed(2, 20, 30, Read(1, 1)),
		committed(3, 20, 30, Read(2, 2, 1)),
	)
	r := check(t, unread, Serializable)
	assert.Equal(t, []AnomalyType{G0, GSingle}, types(r), "%v", r)

	// T1 reads version 0 (T0's append to x) and T0 reads T1's append to
	// y: wr both ways.
	first := history(
		committed(0, 0, 10, Append(1, 1), Read(2, 1)),
		committed(1, 0, 10, Read(1, 1), Append(2, 1)),
	)
	r = check(t, first, Serializable)
	assert.Equal(t, []AnomalyType{G1c}, types(r), "%v", r)
	// The same with registers: version 0 is T0's write of x.
	registers := history(
		committed(0, 0, 10, Write(1, 1), Read(2, 1)),
		committed(1, 0, 10, Read(1, 1), Write(2, 1)),
	)
	r = check(t, registers, Serializable)
	assert.Equal(t, []AnomalyType{G1c}, types(r), "%v", r)

	// T0 read what its process's next transaction, of unknown outcome,
	// appends: the process edge from T0 closes the cycle.
	session := history(
		committed(0, 0, 10, Read(1, 1)),
		timedOut(0, 20, Append(1, 1)),
	)
	r = check(t, session, Serializable)
	assert.True(t, r.OK(), "without sessions T1 may come first: %v", r)
	r = check(t, session, StrongSessionSerializable)
	assert.Equal(t, []AnomalyType{G1cProcess}, types(r), "%v", r)
}

// TestMomentsThatTouch checks that a transaction that completes at the
// moment another is invoked does not precede it: the two overlap at that
// instant, for a process's next transaction and for real time.
func TestMomentsThatTouch(t *testing.T) {
	h := history(
		committed(0, 0, 10, Append(1, 1)),
		committed(0, 10, 20, Append(1, 2)),
	)
	_, err := Check(h, StrictSerializable)
	assert.NoError(t, err, "a process may invoke its next transaction the moment its last completes")

	touching := history(
		committed(0, 0, 5, Append(1, 1)),
		committed(1, 5, 10, Read(1)),
	)
	r := check(t, touching, StrictSerializable)
	assert.True(t, r.OK(), "T1, invoked as T0 completed, may precede it: %v", r)
	apart := history(
		committed(0, 0, 5, Append(1, 1)),
		committed(1, 6, 10, Read(1)),
	)
	r = check(t, apart, StrictSerializable)
	assert.Equal(t, []AnomalyType{GSingleRealtime}, types(r), "%v", r)
}

// TestShortestCycleReported checks that, of a component's cycles, the
// shortest is reported, although the search meets a longer one first:
// T0 → T1 → T2 → T0 (x, x, y) and T1 ⇄ T2 (x, z).
func TestShortestCycleReported(t *testing.T) {
	h := history(
		committed(0, 0, 10, Append(1, 1), Append(2, 2)),
		committed(1, 0, 10, Append(1, 2), Append(3, 2)),
		committed(2, 0, 10, Append(1, 3), Append(2, 1), Append(3, 1)),
		committed(3, 20, 30, Read(1, 1, 2, 3), Read(2, 1, 2), Read(3, 1, 2)),
	)
	r := check(t, h, Serializable)
	require.Equal(t, []AnomalyType{G0}, types(r), "%v", r)
	for _, a := range r.Anomalies {
		assert.Len(t, a.Txns, 2, "%v", a)
	}
}

// TestCycleNamesTheEdgeItNeeds checks that an edge with several reasons is
// taken for the one a cycle's shape needs: T0 → T1 is both ww and wr (T1
// read T0's append, then appended), T1 → T0 only ww, so the cycle is G0
// and, through the wr, G1c.
func TestCycleNamesTheEdgeItNeeds(t *testing.T) {
	h := history(
		committed(0, 0, 10, Append(1, 1), Append(2, 2)),
		committed(1, 0, 10, Read(1, 1), Append(1, 2), Append(2, 1)),
		committed(2, 20, 30, Read(1, 1, 2), Read(2, 1, 2)),
	)
	r := check(t, h, Serializable)
	assert.Equal(t, []AnomalyType{G0, G1c}, types(r), "%v", r)
}

// TestHistoryBookkeeping checks the ids Add gives, Complete's refusal of
// an id just past the end, and outcomes' names out of range.
func TestHistoryBookkeeping(t *testing.T) {
	var h History
	assert.Equal(t, 0, h.Add(committed(0, 0, 1, Append(1, 1))))
	assert.Equal(t, 1, h.Add(committed(0, 2, 3, Append(1, 2))))
	assert.PanicsWithValue(t, "txncheck: Complete: no transaction 2 (history has 2)", func() { h.Complete(2, OK, nil, ms(5)) })
	assert.Equal(t, "fail", Fail.String())
	assert.Equal(t, "Outcome(3)", Outcome(3).String())
}

// TestInstalledRegisterAfterAnAbort checks that a register's installed
// order starts clean: its first version, installed before any other, has
// no predecessor that could make it a dirty update, even when the
// history's next version was written by an aborted transaction.
func TestInstalledRegisterAfterAnAbort(t *testing.T) {
	h := history(
		committed(0, 0, 10, Write(1, 1)),
		aborted(1, 0, 10, Write(1, 2)),
		committed(2, 20, 30, Read(1, 1)),
	)
	h.Installed(1, 1)
	r := check(t, h, StrictSerializable)
	assert.True(t, r.OK(), "%v", r)
}

// TestLaterLongerCycleDoesNotReplaceShorter checks that once a 3-cycle is
// found (T0 → T1 → T2 → T0), the searches from later edges look only for
// shorter ones: T2 → T3 → T0 closes a 4-cycle, which must not replace it.
func TestLaterLongerCycleDoesNotReplaceShorter(t *testing.T) {
	h := history(
		committed(0, 0, 10, Append(1, 1), Append(3, 2), Append(5, 2)),
		committed(1, 0, 10, Append(1, 2), Append(2, 1)),
		committed(2, 0, 10, Append(2, 2), Append(3, 1), Append(4, 1)),
		committed(3, 0, 10, Append(4, 2), Append(5, 1)),
		committed(4, 20, 30, Read(1, 1, 2), Read(2, 1, 2), Read(3, 1, 2), Read(4, 1, 2), Read(5, 1, 2)),
	)
	r := check(t, h, Serializable)
	require.Equal(t, []AnomalyType{G0}, types(r), "%v", r)
	for _, a := range r.Anomalies {
		assert.Len(t, a.Txns, 3, "%v", a)
	}
}
