package txncheck

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadHistories checks that a malformed history gets an error naming
// what is wrong.
func TestBadHistories(t *testing.T) {
	for _, c := range []struct {
		h    *History
		want string
	}{
		{history(committed(0, 0, 10, Append(1, 5)), committed(1, 0, 10, Append(1, 5))),
			"key 1: value 5 written twice, by T0 and T1"},
		{history(committed(0, 0, 10, Append(1, 5)), committed(1, 0, 10, Write(1, 6))),
			"key 1 is both appended to and written (T1 op 0: write(1, 6))"},
		{history(committed(0, 0, 10, Read(1)), committed(0, 5, 20, Read(2))),
			"process 0 ran T0 (0s–10ms) and T1 (from 5ms) at once"},
		{history(committed(0, 10, 5, Read(1))),
			"T0: completed at 5ms, before it was invoked at 10ms"},
		{history(committed(0, 0, 10, Write(1, 1)), committed(1, 20, 30, Read(1, 1, 2))),
			"T1 op 0: register 1 read as 2 values [1 2]"},
		{history(committed(0, 0, 10, Append(1, 5), Append(1, 5))),
			"key 1: value 5 written twice, by T0 and T0"},
		{history(committed(0, 0, 10, Write(2, 7)), aborted(1, 0, 10, Write(2, 7))),
			"key 2: value 7 written twice, by T0 and T1"},
		{history(Txn{Outcome: 7}), "T0: outcome Outcome(7)"},
		{history(committed(0, 0, 10, Op{Type: 9})), "T0 op 0: unknown op type 9"},
	} {
		_, err := Check(c.h, Serializable)
		if assert.Error(t, err, c.want) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
	_, err := Check(&History{}, Model(0))
	assert.EqualError(t, err, "txncheck: unknown model none")
	_, err = Check(&History{}, numModels)
	assert.EqualError(t, err, "txncheck: unknown model Model(10)")
	_, err = CheckWith(&History{}, Options{Anomalies: []AnomalyType{G0, numAnomalyTypes}})
	assert.EqualError(t, err, "txncheck: unknown anomaly AnomalyType(25)")

	// A process may begin another transaction while one of unknown outcome
	// is still out.
	_, err = Check(history(timedOut(0, 0, Append(1, 1)), committed(0, 5, 20, Read(1))), Serializable)
	assert.NoError(t, err)
}

// TestRecorder checks the recorder: ids, outcomes, and the panics that
// name a completion that does not match its invocation.
func TestRecorder(t *testing.T) {
	var h History
	a := h.Invoke(3, []Op{Append(1, 1), Read(2)}, ms(1))
	b := h.Invoke(4, []Op{Read(1)}, ms(2))
	assert.Equal(t, 0, a)
	assert.Equal(t, 1, b)
	h.Complete(a, OK, []Op{Append(1, 1), Read(2, 9)}, ms(3))
	h.Complete(b, Fail, nil, ms(4))
	assert.Equal(t, 2, h.Len())
	assert.Equal(t, Txn{Process: 3, Invoke: ms(1), Complete: ms(3), Outcome: OK, Ops: []Op{Append(1, 1), Read(2, 9)}}, h.Txns()[a])
	assert.Equal(t, "[read(1)] fail, process 4, 2ms–4ms", h.Txns()[b].String())

	c := h.Invoke(5, []Op{Append(1, 2), Read(2)}, ms(5))
	assert.PanicsWithValue(t, "txncheck: Complete: T2: op 0 completed as append(1, 3), invoked as append(1, 2)",
		func() { h.Complete(c, OK, []Op{Append(1, 3), Read(2)}, ms(6)) })
	assert.PanicsWithValue(t, "txncheck: Complete: T2: completed with 1 ops, invoked with 2",
		func() { h.Complete(c, OK, []Op{Append(1, 2)}, ms(6)) })
	assert.PanicsWithValue(t, "txncheck: Complete: T0 already completed (ok)",
		func() { h.Complete(a, OK, nil, ms(6)) })
	assert.PanicsWithValue(t, "txncheck: Complete: no transaction 9 (history has 3)",
		func() { h.Complete(9, OK, nil, ms(6)) })
}

// TestInstalledOrder checks the white-box version order: it orders
// versions no read orders, and a read that contradicts it is flagged.
func TestInstalledOrder(t *testing.T) {
	// Nobody reads key 2 after T0's append: a list only grows, so the
	// append came after T1's empty read of it, and the installed order
	// agrees.
	h := history(
		committed(0, 0, 10, Append(1, 1), Append(2, 2)),
		committed(1, 0, 10, Read(1, 1), Read(2)),
	)
	assert.Equal(t, []AnomalyType{GSingle}, types(check(t, h, Serializable)))
	h.Installed(1, 1)
	h.Installed(2, 2)
	assert.Equal(t, []AnomalyType{GSingle}, types(check(t, h, Serializable)))

	// Registers: two writes of key 1 no read orders.
	regs := func() *History {
		return history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 0, 10, Write(1, 2), Write(2, 2)),
			committed(2, 20, 30, Read(1, 1), Read(2, 2)),
		)
	}
	h = regs()
	assert.True(t, check(t, h, Serializable).OK(), "the writes of key 1 are unordered")
	h.Installed(1, 2)
	h.Installed(1, 1)
	assert.True(t, check(t, h, Serializable).OK(), "T2 read the last version of key 1")
	h = regs()
	h.Installed(1, 1)
	h.Installed(1, 2)
	r := check(t, h, Serializable)
	assert.Equal(t, []AnomalyType{GSingle}, types(r), "T2 read key 1 = 1, before T1's 2, but saw T1's write of key 2")

	// An installed order a read contradicts, and one with a value nobody
	// wrote.
	h = history(
		committed(0, 0, 10, Append(1, 1)),
		committed(1, 0, 10, Append(1, 2)),
		committed(2, 20, 30, Read(1, 1, 2)),
	)
	h.Installed(1, 2)
	h.Installed(1, 1)
	h.Installed(1, 3)
	r = check(t, h, ReadCommitted)
	assert.Equal(t, []AnomalyType{GarbageRead, IncompatibleOrder}, types(r))
	assert.Contains(t, r.String(), "the installed order has key 1 = [2 1 3]: no transaction wrote 3 to key 1")
}

// TestInconclusive checks that a search that runs out of budget before it
// can rule out a cycle snapshot isolation proscribes is not a pass, and
// that one that finds a cycle anyway is a failure.
func TestInconclusive(t *testing.T) {
	defer func(f func(int) int) { searchBudget = f }(searchBudget)
	searchBudget = func(int) int { return 1 }
	writeSkew := caseNamed("G2-item:").h
	r := check(t, writeSkew, SnapshotIsolation)
	assert.Equal(t, Inconclusive, r.Verdict, "%v", r)
	assert.False(t, r.OK())
	assert.Contains(t, r.Note, "was not exhaustive")
	r = check(t, writeSkew, Serializable)
	assert.Equal(t, Invalid, r.Verdict, "any cycle violates serializability")
	require.Len(t, r.Anomalies, 1)
	assert.Equal(t, G2Item, r.Anomalies[0].Type)
}

// TestNilAndEmptyReads checks that a nil read and a read of the empty list
// are distinct ops, and both the initial state of a list.
func TestNilAndEmptyReads(t *testing.T) {
	nilRead, empty := Read(1), Read(1, []int{}...)
	assert.Nil(t, nilRead.Values)
	assert.NotNil(t, empty.Values)
	assert.NotEqual(t, nilRead, empty)
	assert.Equal(t, "read(1) = nil", nilRead.String())
	assert.Equal(t, "read(1) = []", empty.String())
	assert.Equal(t, "read(1) = [3 4]", Read(1, 3, 4).String())
	for _, r := range []Op{nilRead, empty} {
		h := history(committed(0, 0, 10, r), committed(1, 20, 30, Append(1, 1)), committed(2, 40, 50, Read(1, 1)))
		assert.True(t, check(t, h, StrictSerializable).OK(), "%v", r)
	}
}

// TestAnomaliesOnly checks the anomalies-only mode: what it names in the
// result, and that it checks only the anomalies asked for.
func TestAnomaliesOnly(t *testing.T) {
	h := caseNamed("G1a:").h
	r, err := CheckWith(h, Options{Anomalies: []AnomalyType{G1a}})
	require.NoError(t, err)
	assert.Equal(t, Invalid, r.Verdict)
	assert.Equal(t, Model(0), r.Model)
	assert.Equal(t, ReadCommitted, r.Weakest)
	assert.True(t, strings.HasPrefix(r.String(), "invalid under anomalies incompatible-order, G1a, dirty-update: 2 transactions"), r.String())
	r, err = CheckWith(h, Options{Anomalies: []AnomalyType{G0}})
	require.NoError(t, err)
	assert.True(t, r.OK())
	r, err = CheckWith(caseNamed("G2-item:").h, Options{Model: SnapshotIsolation, Anomalies: []AnomalyType{G2Item}})
	require.NoError(t, err)
	assert.Equal(t, []AnomalyType{G2Item}, types(r), "a model and anomalies: both")
	for _, c := range []struct {
		h    *History
		want AnomalyType
	}{
		{caseNamed("G2-item:").h, G2Item},
		{caseNamed("G-nonadjacent:").h, GNonadjacent},
		{caseNamed("G2-item-process:").h, G2ItemProcess},
		{caseNamed("G2-item-realtime:").h, G2ItemRealtime},
		{caseNamed("G0-process:").h, G0Process},
		{caseNamed("G1c-realtime:").h, G1cRealtime},
	} {
		r, err = CheckWith(c.h, Options{Anomalies: []AnomalyType{c.want}})
		require.NoError(t, err)
		assert.Equal(t, []AnomalyType{c.want}, types(r), "%v alone", c.want)
	}
	assert.Equal(t, setOf(G0, G1c, G2Item), span(G0, G1c)|span(G2Item, G2Item))
}
