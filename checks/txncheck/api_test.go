package txncheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNames checks the names of verdicts, anomalies, models, reasons and
// ops, in range and out.
func TestNames(t *testing.T) {
	assert.Equal(t, []string{"valid", "invalid", "inconclusive"}, []string{Valid.String(), Invalid.String(), Inconclusive.String()})
	assert.Equal(t, "future-read", FutureRead.String())
	assert.Equal(t, "AnomalyType(25)", numAnomalyTypes.String())
	assert.Equal(t, "strong-session-snapshot-isolation", StrongSessionSnapshotIsolation.String())
	assert.Equal(t, "Model(10)", numModels.String())
	assert.Equal(t, []string{"ww", "wr", "rw", "process", "realtime", "Dep(0x3)"},
		[]string{WW.String(), WR.String(), RW.String(), Proc.String(), RT.String(), (WW | WR).String()})
	assert.Equal(t, "OpType(7)(1, 2)", Op{Type: 7, Key: 1, Value: 2}.String())
	assert.Equal(t, "write(1, 2)", Write(1, 2).String())
	for a := range numAnomalyTypes {
		assert.Equal(t, a >= G0, a.IsCycle(), "%v", a)
	}
	assert.False(t, numAnomalyTypes.IsCycle())
}

// TestResultAccessors checks Count, First and the note in String.
func TestResultAccessors(t *testing.T) {
	r := check(t, caseNamed("lost update:").h, SnapshotIsolation)
	assert.Equal(t, 1, r.Count(LostUpdate))
	assert.Equal(t, 0, r.Count(G0))
	_, ok := r.First(G0)
	assert.False(t, ok)
	a, ok := r.First(LostUpdate)
	assert.True(t, ok)
	assert.Equal(t, []int{0, 1}, a.Txns)
	assert.Equal(t, 1, a.Key)
	r = &Result{Model: Serializable, Verdict: Inconclusive, Note: "out of budget"}
	assert.Equal(t, "inconclusive under serializable: 0 transactions; out of budget\n", r.String())
}

// TestMoreReads checks reads the rules do not: a register read of an
// aborted write, garbage in a read that contradicts the version order and
// in a register's installed order, a value read as garbage twice, and a
// lost update of three transactions.
func TestMoreReads(t *testing.T) {
	h := history(
		aborted(0, 0, 10, Write(1, 1)),
		committed(1, 20, 30, Read(1, 1), Write(1, 2)),
	)
	r, err := CheckWith(h, Options{Model: ReadCommitted, SequentialKeys: true, LinearizableKeys: true})
	require.NoError(t, err)
	assert.Equal(t, []AnomalyType{G1a}, types(r))

	h = history(
		committed(0, 0, 10, Append(1, 1), Append(1, 2)),
		committed(1, 20, 30, Read(1, 1, 2)),
		committed(2, 20, 30, Read(1, 2, 9)),
		committed(3, 20, 30, Read(1, 2, 9)),
		committed(4, 0, 10, Write(2, 1)),
	)
	h.Installed(2, 8)
	r = check(t, h, ReadCommitted)
	assert.Equal(t, []AnomalyType{GarbageRead, IncompatibleOrder}, types(r))
	assert.Equal(t, 2, r.Count(GarbageRead), "9 on key 1 once, 8 on key 2:\n%v", r)
	assert.Contains(t, r.String(), "T2 read key 1 = [2 9]: no transaction wrote 9 to key 1")
	assert.Contains(t, r.String(), "the installed order has key 2 = [8]: no transaction wrote 8 to key 2")

	// T0 read the longest list, as long as the installed order: the read
	// is the version order's source.
	h = history(
		committed(0, 20, 30, Read(1, 1, 1)),
		committed(1, 0, 10, Append(1, 1)),
	)
	h.Installed(1, 1)
	h.Installed(1, 1)
	r = check(t, h, ReadCommitted)
	a, ok := r.First(DuplicateElements)
	require.True(t, ok)
	assert.Equal(t, "T0 read key 1 = [1 1], with 1 twice", a.Text)
	assert.Equal(t, []int{0}, a.Txns)

	h = history(
		committed(0, 0, 10, Read(1), Append(1, 1)),
		committed(1, 0, 10, Read(1), Append(1, 2)),
		committed(2, 0, 10, Read(1), Append(1, 3)),
	)
	r = check(t, h, SnapshotIsolation)
	a, ok = r.First(LostUpdate)
	require.True(t, ok)
	assert.Equal(t, "T0 and T1 both read key 1 = nil and then both wrote it (and 1 more: [2])", a.Text)
	assert.Equal(t, []int{0, 1, 2}, a.Txns)
}
