package kvraft

import (
	"testing"

	"github.com/replab/replab/rsm/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCodecRoundTrip(t *testing.T) {
	op := Op{Kind: OpCPut, Key: "k", Value: "v", Version: 7}
	b, err := codec{}.AppendCommand(nil, op)
	require.NoError(t, err)
	back, err := codec{}.DecodeCommand(b)
	require.NoError(t, err)
	assert.Equal(t, op, back)
	for n := range len(b) {
		_, err = codec{}.DecodeCommand(b[:n])
		assert.ErrorIs(t, err, wire.ErrTruncated, "a prefix of %d bytes", n)
	}
	_, err = codec{}.DecodeCommand(append([]byte{9}, b[1:]...))
	assert.EqualError(t, err, "kvraft: unknown operation 9 in a log entry")
	_, err = codec{}.AppendCommand(nil, 5)
	assert.EqualError(t, err, "kvraft: command int is not an Op")

	r := result{err: ErrVersion, value: "x", version: -2}
	b, err = codec{}.AppendResult(nil, r)
	require.NoError(t, err)
	rback, err := codec{}.DecodeResult(b)
	require.NoError(t, err)
	assert.Equal(t, r, rback)
	_, err = codec{}.DecodeResult(b[:len(b)-1])
	assert.ErrorIs(t, err, wire.ErrTruncated)
	_, err = codec{}.AppendResult(nil, "no")
	assert.EqualError(t, err, "kvraft: result string is not a kvraft result")
}

func TestStoreSnapshotRoundTrip(t *testing.T) {
	s := &store{data: map[string]*value{}}
	s.Apply(Op{Kind: OpPut, Key: "b", Value: "2"})
	s.Apply(Op{Kind: OpAppend, Key: "a", Value: "1"})
	assert.Equal(t, result{err: ErrVersion}, s.Apply(Op{Kind: OpCPut, Key: "a", Value: "x", Version: 5}))
	snap := s.Snapshot()
	other := &store{}
	require.NoError(t, other.Restore(snap))
	for _, k := range []string{"a", "b", "c"} {
		get := Op{Kind: OpGet, Key: k}
		assert.Equal(t, s.Apply(get), other.Apply(get), "key %q", k)
	}
	assert.Equal(t, snap, other.Snapshot(), "equal states give equal bytes")
	for n := 1; n < len(snap); n++ {
		assert.Error(t, (&store{}).Restore(snap[:n]), "a prefix of %d bytes", n)
	}
}

func TestStoreRestoresTheEmptySnapshotAsEmpty(t *testing.T) {
	s := &store{data: map[string]*value{}}
	s.Apply(Op{Kind: OpPut, Key: "a", Value: "1"})
	require.NoError(t, s.Restore(nil))
	assert.Empty(t, s.data)
}

// TestStoreValuesHandedOutStayPut checks that a value a Get returned is not
// changed by later writes to its key (the store shares its bytes).
func TestStoreValuesHandedOutStayPut(t *testing.T) {
	s := &store{data: map[string]*value{}}
	s.Apply(Op{Kind: OpAppend, Key: "k", Value: "ab"})
	got := s.Apply(Op{Kind: OpGet, Key: "k"}).(result)
	for i, op := range []Op{{Kind: OpAppend, Value: "cd"}, {Kind: OpPut, Value: "xy"}, {Kind: OpAppend, Value: "z"}, {Kind: OpCPut, Value: "w", Version: 4}} {
		op.Key = "k"
		assert.Equal(t, result{err: OK}, s.Apply(op), "write %d", i)
	}
	assert.Equal(t, result{err: OK, value: "ab", version: 1}, got)
	assert.Equal(t, result{err: OK, value: "w", version: 5}, s.Apply(Op{Kind: OpGet, Key: "k"}))
	assert.Equal(t, result{err: ErrNoKey}, s.Apply(Op{Kind: OpGet, Key: "other"}))
	assert.Equal(t, result{err: ErrVersion}, s.Apply(Op{Kind: OpCPut, Key: "other", Version: 1}))
	assert.NotContains(t, s.data, "other", "a refused CPut makes no key")
}
