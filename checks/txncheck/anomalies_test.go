package txncheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An anomalyCase is a hand-made history that shows one anomaly.
type anomalyCase struct {
	name  string
	h     *History
	model Model         // the weakest model that proscribes the anomaly
	want  []AnomalyType // every anomaly the check must report under model, in order
	cycle []int         // for a cycle: its transactions, from the smallest
	deps  []Dep         // and the reason for each step
}

// Observers: transactions that only read a key's final list, so that the
// version order is known; they overlap everything in time.
var anomalyCases = []anomalyCase{
	{
		name: "G0: two transactions append to two keys in opposite orders",
		h: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 1)),
			committed(1, 0, 10, Append(1, 2), Append(2, 2)),
			committed(2, 0, 50, Read(1, 1, 2)),
			committed(3, 0, 50, Read(2, 2, 1)),
		),
		model: ReadUncommitted, want: []AnomalyType{G0},
		cycle: []int{0, 1}, deps: []Dep{WW, WW},
	},
	{
		name: "G1a: a committed read of an aborted append",
		h: history(
			aborted(0, 0, 10, Append(1, 1)),
			committed(1, 0, 10, Read(1, 1)),
		),
		model: ReadCommitted, want: []AnomalyType{G1a},
	},
	{
		name: "G1b: a read of an append its transaction followed with another",
		h: history(
			committed(0, 0, 10, Append(1, 1), Append(1, 2)),
			committed(1, 0, 10, Read(1, 1)),
		),
		model: ReadCommitted, want: []AnomalyType{G1b},
	},
	{
		name: "G1c: each transaction reads the other's append",
		h: history(
			committed(0, 0, 10, Append(1, 1), Read(2, 2)),
			committed(1, 0, 10, Append(2, 2), Read(1, 1)),
		),
		model: ReadCommitted, want: []AnomalyType{G1c},
		cycle: []int{0, 1}, deps: []Dep{WR, WR},
	},
	{
		name: "G-single: read skew, one key seen before a transaction and one after",
		h: history(
			committed(0, 0, 10, Append(1, 1), Append(2, 2)),
			committed(1, 0, 10, Read(1, 1), Read(2)),
			committed(2, 0, 50, Read(2, 2)),
		),
		model: SnapshotIsolation, want: []AnomalyType{GSingle},
		cycle: []int{0, 1}, deps: []Dep{WR, RW},
	},
	{
		name: "G-nonadjacent: two rw edges separated by wr edges",
		h: history(
			committed(0, 0, 10, Read(1), Read(4, 4)),
			committed(1, 0, 10, Append(1, 1), Append(2, 2)),
			committed(2, 0, 10, Read(2, 2), Read(3)),
			committed(3, 0, 10, Append(3, 3), Append(4, 4)),
			committed(4, 0, 50, Read(1, 1), Read(3, 3)),
		),
		model: SnapshotIsolation, want: []AnomalyType{GNonadjacent},
		cycle: []int{0, 1, 2, 3}, deps: []Dep{RW, WR, RW, WR},
	},
	{
		name: "G2-item: write skew, each reads what the other appends",
		h: history(
			committed(0, 0, 10, Read(1), Read(2), Append(1, 1)),
			committed(1, 0, 10, Read(1), Read(2), Append(2, 2)),
			committed(2, 0, 50, Read(1, 1), Read(2, 2)),
		),
		model: RepeatableRead, want: []AnomalyType{G2Item},
		cycle: []int{0, 1}, deps: []Dep{RW, RW},
	},
	{
		name: "G2-item on registers: write skew seen through the initial state",
		h: history(
			committed(0, 0, 10, Read(1), Read(2), Write(1, 1)),
			committed(1, 0, 10, Read(1), Read(2), Write(2, 2)),
		),
		model: RepeatableRead, want: []AnomalyType{G2Item},
		cycle: []int{0, 1}, deps: []Dep{RW, RW},
	},
	{
		name: "lost update: both read the empty list and appended to it",
		h: history(
			committed(0, 0, 10, Read(1), Append(1, 1)),
			committed(1, 0, 10, Read(1), Append(1, 2)),
			committed(2, 0, 50, Read(1, 1, 2)),
		),
		model: SnapshotIsolation, want: []AnomalyType{LostUpdate, GSingle},
		cycle: []int{0, 1}, deps: []Dep{WW, RW},
	},
	{
		name: "lost update on registers: both read 1 and wrote",
		h: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 20, 30, Read(1, 1), Write(1, 2)),
			committed(2, 20, 30, Read(1, 1), Write(1, 3)),
		),
		model: SnapshotIsolation, want: []AnomalyType{LostUpdate},
	},
	{
		name: "internal: a read misses the transaction's own append",
		h: history(
			committed(0, 0, 10, Append(1, 1), Read(1)),
		),
		model: SnapshotIsolation, want: []AnomalyType{Internal},
	},
	{
		name: "internal on registers: a read disagrees with an earlier read",
		h: history(
			committed(0, 0, 10, Write(1, 1)),
			committed(1, 0, 10, Write(1, 2)),
			committed(2, 20, 30, Read(1, 1), Read(1, 2)),
		),
		model: SnapshotIsolation, want: []AnomalyType{Internal},
	},
	{
		name: "garbage read: a value nobody appended",
		h: history(
			committed(0, 0, 10, Append(1, 1)),
			committed(1, 20, 30, Read(1, 1, 5)),
		),
		model: ReadUncommitted, want: []AnomalyType{GarbageRead},
	},
	{
		name: "duplicate elements: a value read twice",
		h: history(
			committed(0, 0, 10, Append(1, 1)),
			committed(1, 20, 30, Read(1, 1, 1)),
		),
		model: ReadUncommitted, want: []AnomalyType{DuplicateElements},
	},
	{
		name: "incompatible order: two reads disagree on the first element",
		h: history(
			committed(0, 0, 10, Append(1, 1)),
			committed(1, 0, 10, Append(1, 2)),
			committed(2, 20, 30, Read(1, 1, 2)),
			committed(3, 20, 30, Read(1, 2, 1)),
		),
		model: ReadCommitted, want: []AnomalyType{IncompatibleOrder},
	},
	{
		name: "G0-process: a process's second append lands before its first",
		h: history(
			committed(0, 0, 10, Append(1, 1)),
			committed(0, 20, 30, Append(1, 2)),
			committed(1, 0, 50, Read(1, 2, 1)),
		),
		model: StrongSessionSnapshotIsolation, want: []AnomalyType{G0Process},
		cycle: []int{0, 1}, deps: []Dep{Proc, WW},
	},
	{
		name: "G1c-process: a read of the process's own future append",
		h: history(
			committed(0, 0, 10, Read(1, 2)),
			committed(0, 20, 30, Append(1, 2)),
		),
		model: StrongSessionSnapshotIsolation, want: []AnomalyType{G1cProcess},
		cycle: []int{0, 1}, deps: []Dep{Proc, WR},
	},
	{
		name: "G-single-process: a process misses its own earlier append",
		h: history(
			committed(0, 0, 10, Append(1, 1)),
			committed(0, 20, 30, Read(1)),
			committed(1, 0, 50, Read(1, 1)),
		),
		model: StrongSessionSnapshotIsolation, want: []AnomalyType{GSingleProcess},
		cycle: []int{0, 1}, deps: []Dep{Proc, RW},
	},
	{
		name: "G-nonadjacent-process: two rw edges, one wr and one process edge",
		h: history(
			committed(0, 0, 40, Read(1), Read(4, 4)),
			committed(1, 0, 10, Append(1, 1)),
			committed(1, 20, 30, Read(3)),
			committed(3, 0, 40, Append(3, 3), Append(4, 4)),
			committed(4, 0, 50, Read(1, 1), Read(3, 3)),
		),
		model: StrongSessionSnapshotIsolation, want: []AnomalyType{GNonadjacentProcess},
		cycle: []int{0, 1, 2, 3}, deps: []Dep{RW, Proc, RW, WR},
	},
	{
		name: "G2-item-process: write skew closed by a process's order",
		h: history(
			committed(0, 20, 30, Read(1)),
			committed(1, 0, 40, Append(1, 1), Read(2)),
			committed(0, 0, 10, Append(2, 2)),
			committed(2, 0, 50, Read(1, 1), Read(2, 2)),
		),
		model: StrongSessionSerializable, want: []AnomalyType{G2ItemProcess},
		cycle: []int{0, 1, 2}, deps: []Dep{RW, RW, Proc},
	},
	{
		name: "G0-realtime: an append that completed first lands second",
		h: history(
			committed(0, 0, 10, Append(1, 1)),
			committed(1, 20, 30, Append(1, 2)),
			committed(2, 0, 50, Read(1, 2, 1)),
		),
		model: StrongSnapshotIsolation, want: []AnomalyType{G0Realtime},
		cycle: []int{0, 1}, deps: []Dep{RT, WW},
	},
	{
		name: "G1c-realtime: a read of an append begun after it completed",
		h: history(
			committed(0, 0, 10, Read(1, 2)),
			committed(1, 20, 30, Append(1, 2)),
		),
		model: StrongSnapshotIsolation, want: []AnomalyType{G1cRealtime},
		cycle: []int{0, 1}, deps: []Dep{RT, WR},
	},
	{
		name: "G-single-realtime: a stale read",
		h: history(
			committed(0, 0, 10, Append(1, 1)),
			committed(1, 20, 30, Read(1)),
			committed(2, 0, 50, Read(1, 1)),
		),
		model: StrongSnapshotIsolation, want: []AnomalyType{GSingleRealtime},
		cycle: []int{0, 1}, deps: []Dep{RT, RW},
	},
	{
		name: "G-nonadjacent-realtime: two rw edges, one wr and one real-time edge",
		h: history(
			committed(0, 0, 40, Read(1), Read(4, 4)),
			committed(1, 0, 10, Append(1, 1)),
			committed(2, 20, 30, Read(3)),
			committed(3, 0, 40, Append(3, 3), Append(4, 4)),
			committed(4, 0, 50, Read(1, 1), Read(3, 3)),
		),
		model: StrongSnapshotIsolation, want: []AnomalyType{GNonadjacentRealtime},
		cycle: []int{0, 1, 2, 3}, deps: []Dep{RW, RT, RW, WR},
	},
	{
		name: "G2-item-realtime: write skew closed by real time",
		h: history(
			committed(0, 20, 30, Read(1)),
			committed(1, 0, 40, Append(1, 1), Read(2)),
			committed(2, 0, 10, Append(2, 2)),
			committed(3, 0, 50, Read(1, 1), Read(2, 2)),
		),
		model: StrictSerializable, want: []AnomalyType{G2ItemRealtime},
		cycle: []int{0, 1, 2}, deps: []Dep{RW, RW, RT},
	},
}

// named returns the first item whose name begins with prefix.
func named[T any](items []T, name func(T) string, prefix string) T {
	for _, it := range items {
		if strings.HasPrefix(name(it), prefix) {
			return it
		}
	}
	panic("nothing named " + prefix)
}

// caseNamed returns the anomaly case whose name begins with prefix.
func caseNamed(prefix string) anomalyCase {
	return named(anomalyCases, func(c anomalyCase) string { return c.name }, prefix)
}

// TestAnomalies checks that each hand-made history shows its anomaly, named
// and with its minimal cycle exactly, under the weakest model that
// proscribes it, is invalid under every model that proscribes it, and is
// valid under every model that does not.
func TestAnomalies(t *testing.T) {
	for _, c := range anomalyCases {
		t.Run(c.name, func(t *testing.T) {
			r := check(t, c.h, c.model)
			t.Log(r)
			assert.Equal(t, Invalid, r.Verdict)
			assert.Equal(t, c.want, types(r))
			assert.Equal(t, c.model, r.Weakest)
			if c.cycle != nil {
				a, ok := r.First(c.want[len(c.want)-1])
				require.True(t, ok)
				txns, deps := shape(a)
				assert.Equal(t, c.cycle, txns, "the cycle's transactions")
				assert.Equal(t, c.deps, deps, "the cycle's edges")
			}
			for _, m := range Models() {
				proscribed := slices.ContainsFunc(c.want, m.Proscribes)
				r := check(t, c.h, m)
				assert.Equal(t, !proscribed, r.OK(), "under %v:\n%v", m, r)
			}
		})
	}
}

// TestExplanation checks a cycle's explanation word for word.
func TestExplanation(t *testing.T) {
	r := check(t, caseNamed("G-single:").h, Serializable)
	a, ok := r.First(GSingle)
	require.True(t, ok)
	assert.Equal(t, `G-single: T0 → T1 → T0
  T0 < T1: T1 read T0's append of 1 to key 1
  T1 < T0: T1 read key 2 = nil, the version before T0's append of 2 to key 2`, a.String())

	r = check(t, caseNamed("G0:").h, Serializable)
	a, ok = r.First(G0)
	require.True(t, ok)
	assert.Equal(t, []string{
		"T0 < T1: T1's append of 2 to key 1 is the version right after T0's append of 1 to key 1",
		"T1 < T0: T0's append of 1 to key 2 is the version right after T1's append of 2 to key 2",
	}, []string{a.Steps[0].Text, a.Steps[1].Text})

	r = check(t, ruleNamed("G0 through").invalid, Serializable)
	a, ok = r.First(G0)
	require.True(t, ok)
	assert.Equal(t, []string{
		"T0 < T1: T1's append of 2 to key 1 is the version right after T0's append of 1 to key 1",
		"T1 < T0: T0's append of 1 to key 2, which no read shows, came after T1's append of 2 to key 2, the last version read",
	}, []string{a.Steps[0].Text, a.Steps[1].Text})

	r = check(t, ruleNamed("read skew").invalid, Serializable)
	a, ok = r.First(GSingle)
	require.True(t, ok)
	assert.Equal(t, "T1 < T0: T1 read key 2 = nil, without T0's append of 1 to key 2, which no read shows (a list only grows: it came later)", a.Steps[1].Text)

	r = check(t, caseNamed("G-single-realtime:").h, StrictSerializable)
	a, ok = r.First(GSingleRealtime)
	require.True(t, ok)
	assert.Equal(t, "T0 < T1: T0 completed at 10ms, before T1 began at 20ms", a.Steps[0].Text)
}

// TestWriteSkewIsSnapshotIsolated checks that write skew passes snapshot
// isolation and fails serializability, and that a stale read that is
// serializable fails strict serializability only.
func TestWriteSkewIsSnapshotIsolated(t *testing.T) {
	for _, c := range []anomalyCase{caseNamed("G2-item:"), caseNamed("G2-item on registers:")} {
		assert.True(t, check(t, c.h, SnapshotIsolation).OK(), c.name)
		r := check(t, c.h, Serializable)
		assert.False(t, r.OK(), c.name)
		assert.Equal(t, []AnomalyType{G2Item}, types(r), c.name)
	}
	stale := caseNamed("G-single-realtime:").h
	for _, m := range []Model{ReadCommitted, SnapshotIsolation, Serializable, StrongSessionSerializable} {
		assert.True(t, check(t, stale, m).OK(), "stale read under %v", m)
	}
	r := check(t, stale, StrictSerializable)
	assert.Equal(t, Invalid, r.Verdict)
	assert.Equal(t, StrongSnapshotIsolation, r.Weakest)
}

// TestModelsNest checks that each model proscribes everything the models
// Elle says it implies do, that Models lists each after those, and that
// the lattice has its incomparable pairs.
func TestModelsNest(t *testing.T) {
	implied := map[Model][]Model{
		ReadCommitted:                  {ReadUncommitted},
		SnapshotIsolation:              {ReadCommitted},
		RepeatableRead:                 {ReadCommitted},
		Serializable:                   {SnapshotIsolation, RepeatableRead},
		StrongSessionSnapshotIsolation: {SnapshotIsolation},
		StrongSnapshotIsolation:        {StrongSessionSnapshotIsolation},
		StrongSessionSerializable:      {Serializable, StrongSessionSnapshotIsolation},
		StrictSerializable:             {StrongSessionSerializable, StrongSnapshotIsolation},
	}
	order := Models()
	for m, weaker := range implied {
		for _, w := range weaker {
			assert.True(t, m.Implies(w), "%v implies %v", m, w)
			assert.Less(t, slices.Index(order, w), slices.Index(order, m), "%v lists before %v", w, m)
		}
	}
	for _, pair := range [][2]Model{{Serializable, StrongSessionSnapshotIsolation}, {RepeatableRead, SnapshotIsolation}, {StrongSessionSerializable, StrongSnapshotIsolation}} {
		assert.False(t, pair[0].Implies(pair[1]), "%v does not imply %v", pair[0], pair[1])
		assert.False(t, pair[1].Implies(pair[0]), "%v does not imply %v", pair[1], pair[0])
	}
	for a := range numAnomalyTypes {
		assert.True(t, StrictSerializable.Proscribes(a), "strict serializability proscribes %v", a)
	}
	assert.False(t, SnapshotIsolation.Proscribes(G2Item))
	assert.True(t, SnapshotIsolation.Proscribes(GNonadjacent))
	assert.False(t, ReadCommitted.Proscribes(Internal), "Elle: read committed allows internal")
	assert.True(t, ReadCommitted.Proscribes(FutureRead))
	assert.True(t, ReadUncommitted.Proscribes(CyclicVersions))
	assert.False(t, ReadUncommitted.Proscribes(G1a))
	assert.False(t, Serializable.Proscribes(GSingleProcess))
	assert.True(t, StrongSessionSnapshotIsolation.Proscribes(GSingleProcess))
	assert.False(t, StrongSessionSnapshotIsolation.Proscribes(G2ItemProcess))
	assert.True(t, StrongSnapshotIsolation.Proscribes(GNonadjacentRealtime))
	assert.False(t, StrongSnapshotIsolation.Proscribes(G2ItemRealtime))
	assert.False(t, StrongSessionSerializable.Proscribes(GSingleRealtime))
	assert.False(t, Model(0).Proscribes(G0))
	assert.False(t, numModels.Proscribes(G0))
	assert.False(t, numModels.Implies(ReadUncommitted))
	assert.False(t, ReadUncommitted.Implies(numModels))
	assert.True(t, ReadCommitted.Implies(ReadCommitted))
	assert.False(t, StrictSerializable.Proscribes(numAnomalyTypes))
}
