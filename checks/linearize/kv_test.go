package linearize

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
)

func TestUnversionedGetIsCheckedByValueAlone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		out  KVOutput
		want porcupine.CheckResult
	}{
		{KVOutput{Value: "1"}, porcupine.Ok},
		{KVOutput{Value: "1", Version: 7}, porcupine.Ok}, // not Versioned: 7 is not looked at
		{KVOutput{Value: "2"}, porcupine.Illegal},
		{got("1", 1), porcupine.Ok},
		{got("1", 7), porcupine.Illegal},
	} {
		var h History
		record(&h, 0, put("x", "1"), KVOutput{}, 0, 1)
		record(&h, 1, get("x"), c.out, 2, 3)
		assert.Equal(t, c.want, check(t, &h).Verdict, "%+v", c.out)
	}
}

func TestFailedOperationTakesNoEffect(t *testing.T) {
	t.Parallel()
	for _, op := range []KVInput{put("x", "1"), appendOp("x", "1"), cput("x", "1", 0)} {
		for _, c := range []struct {
			seen KVOutput
			want porcupine.CheckResult
		}{
			{got("", 0), porcupine.Ok},
			{got("1", 1), porcupine.Illegal},
		} {
			var h History
			record(&h, 0, op, KVOutput{Failed: true}, 0, 1)
			record(&h, 1, get("x"), c.seen, 2, 3)
			assert.Equal(t, c.want, check(t, &h).Verdict, "%v failed, then get → %+v", op.Kind, c.seen)
		}
		// One that never returned may have taken effect.
		var h History
		h.Call(0, op, at(0))
		record(&h, 1, get("x"), got("1", 1), 2, 3)
		assert.True(t, check(t, &h).OK(), "%v never returned, then get → 1", op.Kind)
	}
	var h History
	record(&h, 0, get("x"), KVOutput{Value: "never written", Failed: true}, 0, 1)
	assert.True(t, check(t, &h).OK(), "a failed get says nothing")
}

func TestKVModelDescribes(t *testing.T) {
	t.Parallel()
	m := KVModel()
	for _, c := range []struct {
		in   KVInput
		out  any
		want string
	}{
		{get("x"), got("1", 2), `get("x") → "1" v2`},
		{get("x"), KVOutput{Value: "1"}, `get("x") → "1"`},
		{get("x"), nil, `get("x") → ?`},
		{put("x", "1"), KVOutput{}, `put("x", "1") → ok`},
		{appendOp("x", "1"), KVOutput{Failed: true}, `append("x", "1") → failed`},
		{cput("x", "1", 3), KVOutput{OK: true}, `cput("x", "1", v3) → true`},
	} {
		assert.Equal(t, c.want, m.DescribeOperation(c.in, c.out))
	}
	assert.Equal(t, `"ab" v2`, m.DescribeState(newKVState().put("a").append("b")))
	assert.Equal(t, `key "x"`, m.PartName(get("x")))
}
