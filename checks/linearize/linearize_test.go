package linearize

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/replab/replab/chaos/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(key string) KVInput           { return KVInput{Kind: Get, Key: key} }
func put(key, v string) KVInput        { return KVInput{Kind: Put, Key: key, Value: v} }
func appendOp(key, v string) KVInput   { return KVInput{Kind: Append, Key: key, Value: v} }
func got(v string, ver int64) KVOutput { return KVOutput{Value: v, Version: ver, Versioned: true} }
func at(ms int) time.Duration          { return time.Duration(ms) * time.Millisecond }
func cput(key, v string, ver int64) KVInput {
	return KVInput{Kind: CPut, Key: key, Value: v, Version: ver}
}

func check(t *testing.T, h *History) Result {
	faults := fault.Log{{At: at(1), Text: "partition"}, {At: at(2), Fault: fault.Fault{Kind: fault.Heal}}}
	r, err := Check(KVModel(), h.Operations(), faults, 5*time.Second, t.TempDir(), t.Name())
	require.NoError(t, err)
	return r
}

func TestLinearizableHistoryPasses(t *testing.T) {
	t.Parallel()
	var h History
	a := h.Call(0, put("x", "1"), at(0))
	b := h.Call(1, get("x"), at(1))
	h.Return(a, KVOutput{}, at(3))
	h.Return(b, got("1", 1), at(4)) // concurrent with the put: may see it
	c := h.Call(0, appendOp("x", "2"), at(5))
	h.Return(c, KVOutput{}, at(6))
	d := h.Call(1, cput("x", "3", 2), at(7))
	h.Return(d, KVOutput{OK: true}, at(8))
	e := h.Call(1, cput("x", "4", 2), at(9))
	h.Return(e, KVOutput{OK: false}, at(10))
	f := h.Call(0, get("x"), at(11))
	h.Return(f, got("3", 3), at(12))
	r := check(t, &h)
	assert.True(t, r.OK(), r.Problem())
	assert.Empty(t, r.Problem())
}

func TestStaleReadIsCaught(t *testing.T) {
	t.Parallel()
	var h History
	a := h.Call(0, put("x", "1"), at(0))
	h.Return(a, KVOutput{}, at(1))
	b := h.Call(1, get("x"), at(2)) // after the put returned: must see it
	h.Return(b, got("", 0), at(3))
	r := check(t, &h)
	require.Equal(t, porcupine.Illegal, r.Verdict)
	assert.Contains(t, r.Problem(), `not linearizable: key "x": operation 1, get("x") → "" v0 (client 1, 2ms to 3ms), cannot follow`)
	assert.Contains(t, r.Problem(), "; visualization: "+r.HTML)
	html, err := os.ReadFile(r.HTML)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(html), "partition"), "the fault is marked in the visualization")
	assert.True(t, strings.Contains(string(html), "heal"), "a fault without text is marked as the log would print it")
}

func TestDoubleAppendIsCaught(t *testing.T) {
	t.Parallel()
	var h History
	a := h.Call(0, appendOp("x", "a"), at(0))
	h.Return(a, KVOutput{}, at(1))
	b := h.Call(0, get("x"), at(2))
	h.Return(b, got("aa", 2), at(3))
	assert.Equal(t, porcupine.Illegal, check(t, &h).Verdict)
}

func TestAmbiguousWriteMayOrMayNotHappen(t *testing.T) {
	t.Parallel()
	for _, seen := range []KVOutput{got("", 0), got("1", 1)} {
		var h History
		h.Call(0, put("x", "1"), at(0)) // never returns
		b := h.Call(1, get("x"), at(5))
		h.Return(b, seen, at(6))
		assert.True(t, check(t, &h).OK(), "a get after an unfinished put may see %v", seen)
	}
	var h History
	h.Call(0, put("x", "1"), at(5)) // never returns, and was called after the get
	b := h.Call(1, get("x"), at(0))
	h.Return(b, got("1", 1), at(1))
	assert.Equal(t, porcupine.Illegal, check(t, &h).Verdict, "an unfinished put cannot take effect before it was called")
}

func TestWrongCPutOutcomeIsCaught(t *testing.T) {
	t.Parallel()
	var h History
	a := h.Call(0, cput("x", "1", 0), at(0))
	h.Return(a, KVOutput{OK: false}, at(1)) // version 0 matches a new key
	assert.Equal(t, porcupine.Illegal, check(t, &h).Verdict)
}

func TestTimeoutIsNotOK(t *testing.T) {
	t.Parallel()
	r := Result{Verdict: porcupine.Unknown, Ops: 10, Took: 1001 * time.Millisecond, Timeout: time.Second, Unfinished: []string{`key "a"`, `key "b"`}}
	assert.False(t, r.OK())
	assert.Equal(t, `linearizability check of 10 operations ran out of its 1s (took 1.001s) on key "a", key "b": the result is unknown, which is not a pass (make the history smaller)`, r.Problem())
}

func TestPartitionsAreSortedByKey(t *testing.T) {
	t.Parallel()
	var h History
	for i, k := range []string{"b", "c", "a", "b"} {
		h.Call(i, get(k), at(i))
	}
	parts := partitionByKey(h.Operations())
	require.Len(t, parts, 3)
	var got [][]int // each part's clients, in order
	for _, p := range parts {
		var clients []int
		for _, op := range p {
			clients = append(clients, op.ClientId)
		}
		got = append(got, clients)
		assert.Equal(t, len(p), cap(p), "a part is allocated at its size")
	}
	assert.Equal(t, [][]int{{2}, {0, 3}, {1}}, got, "parts a, b, c, each in the history's order")
}

func TestNoDirNoVisualization(t *testing.T) {
	t.Parallel()
	var h History
	a := h.Call(0, put("x", "1"), at(0))
	h.Return(a, KVOutput{}, at(1))
	b := h.Call(1, get("x"), at(2))
	h.Return(b, got("", 0), at(3))
	r, err := Check(KVModel(), h.Operations(), nil, 5*time.Second, "", "none")
	require.NoError(t, err)
	assert.Empty(t, r.HTML)
	require.NotNil(t, r.Explanation, "explained without a drawing")
	assert.Equal(t, `history of 2 operations is not linearizable: key "x": operation 1, get("x") → "" v0 (client 1, 2ms to 3ms), cannot follow the longest linearizable order (1 operation); last writes completed before it: operation 0, put("x", "1") → ok (client 0, 0s to 1ms)`, r.Problem())
}
