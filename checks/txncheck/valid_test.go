package txncheck

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeneratedHistoriesPass checks that histories generated from a serial
// execution, with random windows around each commit point, pass under
// every model: lists and registers, with aborted and unknown transactions.
func TestGeneratedHistoriesPass(t *testing.T) {
	workloads := map[string]workload{
		"lists":                       {txns: 500, ops: 4, keys: 10, processes: 5, maxWrites: 16},
		"lists, aborts, unknowns":     {txns: 500, ops: 4, keys: 10, processes: 5, maxWrites: 16, failRate: 0.1, unknownMay: 0.1},
		"registers":                   {txns: 500, ops: 4, keys: 5, processes: 5, maxWrites: 16, registers: true},
		"registers, aborts, unknowns": {txns: 500, ops: 4, keys: 5, processes: 5, maxWrites: 16, failRate: 0.1, unknownMay: 0.1, registers: true},
		"one key, many processes":     {txns: 300, ops: 3, keys: 1, processes: 20, maxWrites: 1000},
	}
	for name, w := range workloads {
		for seed := range uint64(8) {
			h := generate(seed, w)
			for _, m := range Models() {
				r := check(t, h, m)
				if !r.OK() {
					t.Fatalf("%s, seed %d, %v: a serial history failed:\n%v%s", name, seed, m, r, writePage(t, r, "generated"))
				}
			}
			// The history is strictly serializable: each register is
			// linearizable, so sequential too.
			r, err := CheckWith(h, Options{Model: StrictSerializable, SequentialKeys: true, LinearizableKeys: true})
			require.NoError(t, err)
			if !r.OK() {
				t.Fatalf("%s, seed %d, sequential and linearizable keys: a serial history failed:\n%v", name, seed, r)
			}
		}
	}
}

// A mutation changes one committed read of a valid history.
type mutation struct {
	name string
	// apply changes read o of h in place (its Values are a fresh copy) and
	// reports whether it could.
	apply func(rng *rand.Rand, h *History, o *Op) bool
}

var mutations = []mutation{
	{"drop an element", func(rng *rand.Rand, _ *History, o *Op) bool {
		if len(o.Values) == 0 {
			return false
		}
		i := rng.IntN(len(o.Values))
		o.Values = slices.Delete(o.Values, i, i+1)
		return true
	}},
	{"swap two elements", func(rng *rand.Rand, _ *History, o *Op) bool {
		if len(o.Values) < 2 {
			return false
		}
		i := rng.IntN(len(o.Values))
		j := (i + 1 + rng.IntN(len(o.Values)-1)) % len(o.Values)
		o.Values[i], o.Values[j] = o.Values[j], o.Values[i]
		return true
	}},
	{"read an aborted append", func(rng *rand.Rand, h *History, o *Op) bool {
		var values []int
		for _, t := range h.txns {
			for _, a := range t.Ops {
				if t.Outcome == Fail && a.Type == OpAppend && a.Key == o.Key {
					values = append(values, a.Value)
				}
			}
		}
		if len(values) == 0 {
			return false
		}
		o.Values = slices.Insert(o.Values, rng.IntN(len(o.Values)+1), values[rng.IntN(len(values))])
		return true
	}},
}

// TestMutationsCaught takes valid generated histories, changes one
// committed read in each, and checks that strict serializability flags at
// least 99% of them.
func TestMutationsCaught(t *testing.T) {
	w := workload{txns: 200, ops: 4, keys: 5, processes: 5, maxWrites: 32, failRate: 0.05, unknownMay: 0.05}
	const n = 500
	caught := make([]int, len(mutations))
	tried := make([]int, len(mutations))
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 1))
		m := mutations[seed%uint64(len(mutations))]
		h := generate(seed, w)
		require.True(t, check(t, h, StrictSerializable).OK(), "seed %d: unmutated history", seed)
		var what string
		for {
			id := rng.IntN(h.Len())
			tx := &h.txns[id]
			if tx.Outcome != OK {
				continue
			}
			i := rng.IntN(len(tx.Ops))
			if tx.Ops[i].Type != OpRead {
				continue
			}
			ops := slices.Clone(tx.Ops)
			ops[i].Values = slices.Clone(ops[i].Values)
			before := Read(ops[i].Key, slices.Clone(ops[i].Values)...)
			if !m.apply(rng, h, &ops[i]) {
				continue
			}
			tx.Ops = ops
			what = fmt.Sprintf("T%d: %v became %v", id, before, ops[i])
			break
		}
		k := int(seed % uint64(len(mutations)))
		tried[k]++
		if r := check(t, h, StrictSerializable); !r.OK() {
			caught[k]++
		} else {
			t.Logf("seed %d, %s: not caught (%s)", seed, m.name, what)
		}
	}
	total := 0
	for k, m := range mutations {
		t.Logf("%s: %d of %d caught (%.1f%%)", m.name, caught[k], tried[k], 100*float64(caught[k])/float64(tried[k]))
		total += caught[k]
	}
	rate := float64(total) / n
	t.Logf("all mutations: %d of %d caught (%.1f%%)", total, n, 100*rate)
	assert.GreaterOrEqual(t, rate, 0.99)
}

// TestUnknownOutcomes checks that a transaction of unknown outcome may or
// may not have committed, and hides no anomaly that is certain.
func TestUnknownOutcomes(t *testing.T) {
	// T1 saw T0's append: valid only if T0 committed.
	committedOnly := history(
		timedOut(0, 0, Append(1, 1)),
		committed(1, 20, 30, Read(1, 1)),
	)
	// Nobody saw T0's append, long after it began: valid only if T0 did not
	// commit (or committed after every read).
	notCommitted := history(
		timedOut(0, 0, Append(1, 1), Append(2, 2)),
		committed(1, 20, 30, Read(1)),
		committed(2, 40, 50, Read(1), Read(2)),
		committed(3, 60, 70, Append(1, 3)),
		committed(1, 80, 90, Read(1, 3)),
	)
	// T1 saw T0's append to key 1 but not its append to key 2: if T0
	// committed, read skew; if not, T1 read a value never committed.
	eitherWay := history(
		timedOut(0, 0, Append(1, 1), Append(2, 2)),
		committed(1, 20, 30, Read(1, 1), Read(2)),
		committed(2, 40, 50, Read(2, 2)),
	)
	for _, m := range Models() {
		assert.True(t, check(t, committedOnly, m).OK(), "valid if it committed, under %v", m)
		assert.True(t, check(t, notCommitted, m).OK(), "valid if it did not commit, under %v", m)
	}
	r := check(t, eitherWay, SnapshotIsolation)
	assert.Equal(t, Invalid, r.Verdict, "invalid either way")
	assert.Equal(t, []AnomalyType{GSingle}, types(r))

	// A recorded transaction that never completed is unknown, and one whose
	// client gave up is too.
	var h History
	a := h.Invoke(0, []Op{Append(1, 1)}, ms(0))
	b := h.Invoke(1, []Op{Read(1)}, ms(5))
	h.Complete(b, OK, []Op{Read(1, 1)}, ms(10))
	c := h.Invoke(1, []Op{Append(1, 2)}, ms(20))
	h.Complete(c, Unknown, nil, ms(30))
	assert.Equal(t, Unknown, h.Txns()[a].Outcome)
	assert.Equal(t, Unknown, h.Txns()[c].Outcome)
	assert.True(t, check(t, &h, StrictSerializable).OK())
}
