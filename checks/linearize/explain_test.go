package linearize

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExplanationNamesTheStuckOperationAndTheLastWrites(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 5, put("y", "0"), KVOutput{}, 0, 1)
	record(&h, 0, put("x", "a"), KVOutput{}, 0, 10)
	record(&h, 1, appendOp("x", "b"), KVOutput{}, 5, 35) // concurrent with the put, and with d: it returns as d is called
	record(&h, 2, cput("x", "z", 0), KVOutput{OK: false}, 22, 25)
	record(&h, 5, get("y"), got("0", 1), 2, 3)
	record(&h, 2, appendOp("x", "c"), KVOutput{}, 30, 40)
	record(&h, 3, appendOp("x", "d"), KVOutput{}, 35, 42)
	record(&h, 4, appendOp("x", "e"), KVOutput{}, 44, 46) // concurrent with the get
	record(&h, 0, get("x"), got("ab", 2), 45, 50)         // misses c and d
	record(&h, 1, get("x"), got("abcde", 5), 60, 70)
	ops := h.Operations()
	ops[8].Metadata = "the stale read"
	r, err := Check(KVModel(), ops, nil, time.Minute, "", "")
	require.NoError(t, err)
	require.Equal(t, porcupine.Illegal, r.Verdict)
	e := r.Explanation
	require.NotNil(t, e)
	assert.Equal(t, `key "x"`, e.Part)
	assert.Equal(t, 8, e.Stuck.Index, "its place in the history, not in its key's")
	assert.Equal(t, ops[8], e.Stuck.Operation, "with its own metadata")
	assert.Equal(t, `get("x") → "ab" v2`, e.Stuck.Text)
	assert.Equal(t, []int{1, 2, 3, 5, 6, 7}, e.Order, "the longest order, first of those as long in the order of the key's operations")
	assert.Equal(t, `"abcde" v5`, e.State)
	var writes []int
	for _, w := range e.Writes {
		writes = append(writes, w.Index)
		assert.Equal(t, ops[w.Index], w.Operation)
	}
	assert.Equal(t, []int{2, 5, 6}, writes, "b, c and d; not a (d was called after it returned), nor the cput (it changed nothing), nor e (it returned after the get was called)")
	assert.Equal(t, `history of 10 operations is not linearizable: key "x": operation 8, get("x") → "ab" v2 (client 0, 45ms to 50ms), cannot follow the longest linearizable order (6 operations); last writes completed before it: operation 2, append("x", "b") → ok (client 1, 5ms to 35ms), operation 5, append("x", "c") → ok (client 2, 30ms to 40ms), operation 6, append("x", "d") → ok (client 3, 35ms to 42ms)`, r.Problem())
}

func TestOnlyWhatChangesTheStateIsAWrite(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 0, put("x", "1"), KVOutput{}, 0, 1)
	record(&h, 1, get("x"), got("1", 1), 2, 3)
	record(&h, 1, cput("x", "2", 0), KVOutput{OK: false}, 4, 5)
	record(&h, 2, appendOp("x", "3"), KVOutput{Failed: true}, 6, 7)
	record(&h, 0, get("x"), got("", 0), 8, 9)
	r, err := Check(KVModel(), h.Operations(), nil, time.Minute, "", "")
	require.NoError(t, err)
	require.NotNil(t, r.Explanation)
	assert.Equal(t, 4, r.Explanation.Stuck.Index)
	assert.Equal(t, []int{0, 1, 2, 3}, r.Explanation.Order)
	require.Len(t, r.Explanation.Writes, 1, "neither the get, nor the cput that did not match, nor the failed append")
	assert.Equal(t, 0, r.Explanation.Writes[0].Index)
}

func TestExplanationOfAFirstOperation(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 0, get("x"), got("never written", 1), 0, 1)
	record(&h, 1, put("x", "1"), KVOutput{}, 2, 3)
	r, err := Check(KVModel(), h.Operations(), nil, time.Minute, "", "")
	require.NoError(t, err)
	e := r.Explanation
	require.NotNil(t, e)
	assert.Equal(t, 0, e.Stuck.Index)
	assert.Empty(t, e.Order)
	assert.Equal(t, `"" v0`, e.State)
	assert.Empty(t, e.Writes)
	assert.Equal(t, `key "x": operation 0, get("x") → "never written" v1 (client 0, 0s to 1ms), cannot follow the longest linearizable order (0 operations); no write completed before it`, e.String())
}

func TestViolationWithoutTimeToExplainIt(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 0, put("x", "1"), KVOutput{}, 0, 1)
	record(&h, 1, get("bad"), got("never written", 1), 0, 1)
	dir := t.TempDir()
	// The check's one step on "bad" fails at once; the explaining search's waits.
	r, err := Check(stuckModel("bad", 1), h.Operations(), nil, 100*time.Millisecond, dir, "slow")
	require.NoError(t, err)
	assert.Equal(t, porcupine.Illegal, r.Verdict)
	assert.Equal(t, `key "bad"`, r.Violation)
	assert.Nil(t, r.Explanation)
	assert.Equal(t, `history of 2 operations is not linearizable (key "bad"; explaining it ran out of time); visualization: `+r.HTML, r.Problem())
	assert.FileExists(t, r.HTML, "what the search found is drawn all the same")
}

func TestExplanationShowsThreeWrites(t *testing.T) {
	t.Parallel()
	w := func(i int) Op {
		return Op{Index: i, Operation: porcupine.Operation{ClientId: i, Call: int64(i), Return: int64(i + 1)}, Text: "w"}
	}
	e := &Explanation{Part: "p", Stuck: w(9), Order: []int{1, 2, 3, 4}, Writes: []Op{w(1), w(2), w(3), w(4), w(5)}}
	assert.Equal(t, "p: operation 9, w (client 9, 9ns to 10ns), cannot follow the longest linearizable order (4 operations); last writes completed before it: operation 1, w (client 1, 1ns to 2ns), operation 2, w (client 2, 2ns to 3ns), operation 3, w (client 3, 3ns to 4ns) and 2 more", e.String())
}

func TestOpNeverReturned(t *testing.T) {
	t.Parallel()
	o := Op{Index: 3, Operation: porcupine.Operation{ClientId: 1, Call: int64(time.Second), Return: math.MaxInt64}, Text: `put("x", "1") → ?`}
	assert.Equal(t, `operation 3, put("x", "1") → ? (client 1, from 1s, never returned)`, o.String())
}

func TestLongestIsTheFirstOfTheLongest(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []int{1, 0, 2}, longest([][]int{{2, 1, 0}, {0, 2}, {1, 0, 2}, {0, 1}}))
	assert.Empty(t, longest(nil))
}

func TestLocateFindsEachOperationsPlace(t *testing.T) {
	t.Parallel()
	ops := []porcupine.Operation{{Input: get("b"), Metadata: "0"}, {Input: get("a")}, {Input: get("b"), Metadata: 2, Call: 1}}
	m := KVModel()
	parts := m.parts(ops)
	part, index, err := m.locate(ops, parts, 1)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2}, index)
	assert.Equal(t, []porcupine.Operation{ops[0], ops[2]}, part, "with their own metadata")
	assert.Equal(t, "0", ops[0].Metadata, "ops are left as they were")
	assert.Equal(t, []porcupine.Operation{ops[0], ops[2]}, parts[1], "and so are the parts")
}

func TestPartitionMustSplitTheSameWayEachTime(t *testing.T) {
	t.Parallel()
	var h History
	record(&h, 0, get("a"), got("never written", 1), 0, 1)
	record(&h, 1, get("b"), got("", 0), 0, 1)
	m := KVModel()
	calls := 0
	m.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
		calls++
		parts := partitionByKey(ops)
		if calls > 1 {
			slices.Reverse(parts)
		}
		return parts
	}
	r, err := Check(m, h.Operations(), nil, time.Minute, "", "")
	assert.EqualError(t, err, "linearize: the model's Partition splits a history differently from one call to the next")
	assert.Equal(t, porcupine.Illegal, r.Verdict, "the verdict stands")
	assert.Equal(t, `key "a"`, r.Violation)
	assert.Nil(t, r.Explanation)
}
