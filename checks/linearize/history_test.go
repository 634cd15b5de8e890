package linearize

import (
	"math"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHistoryRecordsCallsAndReturns(t *testing.T) {
	t.Parallel()
	var h History
	a := h.Call(3, put("x", "1"), at(1))
	h.Call(4, get("x"), at(2))
	h.Return(a, KVOutput{}, at(2)) // a return at its call's time is fine
	assert.Equal(t, 2, h.Len())
	ops := h.Operations()
	require.Len(t, ops, 2)
	assert.Equal(t, porcupine.Operation{ClientId: 3, Input: put("x", "1"), Call: int64(at(1)), Output: KVOutput{}, Return: int64(at(2))}, ops[0])
	assert.Equal(t, porcupine.Operation{ClientId: 4, Input: get("x"), Call: int64(at(2)), Return: math.MaxInt64}, ops[1], "b never returned")
	ops[0].ClientId = 9
	assert.Equal(t, 3, h.Operations()[0].ClientId, "Operations returns a copy")
}

func TestHistoryPanicsNamingTheBadCall(t *testing.T) {
	t.Parallel()
	var h History
	id := h.Call(0, put("x", "1"), at(5))
	assert.PanicsWithValue(t, "linearize: History.Return: no operation 1 (1 called)", func() { h.Return(1, KVOutput{}, at(6)) })
	assert.PanicsWithValue(t, "linearize: History.Return: no operation -1 (1 called)", func() { h.Return(-1, KVOutput{}, at(6)) })
	assert.PanicsWithValue(t, "linearize: History.Return: operation 0 returns at 4ms, before its call at 5ms", func() { h.Return(id, KVOutput{}, at(4)) })
	h.Return(id, KVOutput{}, at(6))
	assert.PanicsWithValue(t, "linearize: History.Return: operation 0 already returned, at 6ms", func() { h.Return(id, KVOutput{}, at(7)) })
	assert.PanicsWithValue(t, "linearize: History.Call: client 2 calls an operation with a nil input", func() { h.Call(2, nil, at(7)) })
	assert.Equal(t, 1, h.Len(), "nothing bad was recorded")
}

func TestCheckRefusesOperationsItCannotCheck(t *testing.T) {
	t.Parallel()
	good := porcupine.Operation{ClientId: 1, Input: put("x", "1"), Output: KVOutput{}, Call: 1, Return: 2}
	for _, c := range []struct {
		bad func(*porcupine.Operation)
		err string
	}{
		{func(op *porcupine.Operation) { op.Input = nil }, "linearize: operation 1 (client 4): no input"},
		{func(op *porcupine.Operation) { op.Call = 3 }, "linearize: operation 1 (client 4): returns at 2ns, before its call at 3ns"},
		{func(op *porcupine.Operation) { op.Input = "get x" }, `linearize: operation 1 (client 4): input "get x" is not a KVInput`},
		{func(op *porcupine.Operation) { op.Input = KVInput{Kind: 7, Key: "x"} }, "linearize: operation 1 (client 4): input kind 7 is none of get, put, append, cput"},
		{func(op *porcupine.Operation) { op.Input = KVInput{Kind: -1, Key: "x"} }, "linearize: operation 1 (client 4): input kind -1 is none of get, put, append, cput"},
		{func(op *porcupine.Operation) { op.Output = &KVOutput{} }, "linearize: operation 1 (client 4): output &linearize.KVOutput{Value:\"\", Version:0, Versioned:false, OK:false, Failed:false} is not a KVOutput (or nil, never returned)"},
	} {
		bad := good
		bad.ClientId = 4
		c.bad(&bad)
		_, err := Check(KVModel(), []porcupine.Operation{good, bad, good}, nil, NoTimeout, "", "")
		assert.EqualError(t, err, c.err)
	}
	never := good
	never.Output, never.Return = nil, math.MaxInt64
	r, err := Check(KVModel(), []porcupine.Operation{good, never}, nil, NoTimeout, "", "")
	require.NoError(t, err, "an operation that never returned has no output")
	assert.True(t, r.OK())
	m := KVModel()
	m.Validate = nil
	_, err = Check(m, []porcupine.Operation{good, {ClientId: 2, Call: 3, Return: 4}}, nil, NoTimeout, "", "")
	assert.EqualError(t, err, "linearize: operation 1 (client 2): no input", "without Validate, Check still refuses a nil input")
}
