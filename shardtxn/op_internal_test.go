package shardtxn

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLimitsInclusive checks that an op or a transaction exactly at a
// limit is accepted: the limits are the largest sizes allowed.
func TestLimitsInclusive(t *testing.T) {
	t.Parallel()
	key, value := strings.Repeat("k", MaxKey), strings.Repeat("v", MaxValue)
	assert.NoError(t, checkTxn([]Op{Set(key, value)}))
	assert.NoError(t, checkTxn([]Op{CSet("k", "new", value)}), "an expected value of MaxValue bytes")
	assert.NoError(t, checkTxn(slices.Repeat([]Op{Get("k")}, MaxOps)))
}

// TestCheckRefuses checks the refusals of malformed ops that TestBadInput
// does not try: an expected value too long, and a CSet expecting both
// absence and a value.
func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("v", MaxValue+1)
	assert.EqualError(t, checkTxn([]Op{CSet("k", "new", long)}), "shardtxn: cset k: value of 65537 bytes (at most 65536)")
	assert.EqualError(t, checkTxn([]Op{Get("k"), {Kind: OpCSet, Key: "k", Value: "v", Expect: "w", Absent: true}}),
		`shardtxn: cset k: expects both absence and "w"`)
}

// TestFold checks which ops Fold drops: a Set or Del whose key is written
// again (Set or Del) with nothing on the key between. An op that reads the
// key, or whose effect depends on its value (CSet, Append), is kept even
// when a Set overwrites the key after it, and so is a write read later.
func TestFold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ops  []Op
		from []int // the indexes kept
	}{
		{[]Op{Set("x", "1"), Set("x", "2")}, []int{1}},
		{[]Op{Del("x"), Set("x", "2")}, []int{1}},
		{[]Op{Set("x", "1"), Del("x")}, []int{1}},
		{[]Op{Set("x", "1"), Set("y", "1"), Set("x", "2")}, []int{1, 2}},
		{[]Op{Set("x", "1"), Get("x"), Set("x", "2")}, []int{0, 1, 2}},
		{[]Op{Get("x"), Set("x", "2")}, []int{0, 1}},
		{[]Op{Read("x"), Del("x")}, []int{0, 1}},
		{[]Op{CSet("x", "1", "0"), Set("x", "2")}, []int{0, 1}},
		{[]Op{Append("x", "1"), Set("x", "2")}, []int{0, 1}},
		{[]Op{Set("x", "1"), Append("x", "2")}, []int{0, 1}},
	} {
		kept, from := Fold(tc.ops)
		assert.Equal(t, tc.from, from, "%v", tc.ops)
		want := make([]Op, len(tc.from))
		for i, j := range tc.from {
			want[i] = tc.ops[j]
		}
		assert.Equal(t, want, kept, "%v", tc.ops)
	}
}

// TestTxidOrder checks the order the servers sort transactions in (the
// table's recovery, the cleanup's rounds, snapshots): by client, then by
// the client's sequence number.
func TestTxidOrder(t *testing.T) {
	t.Parallel()
	ids := []Txid{{2, 1}, {1, 2}, {1, 1}, {2, 3}, {1, 3}}
	slices.SortFunc(ids, compareTxid)
	assert.Equal(t, []Txid{{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 3}}, ids)
	for _, tc := range []struct {
		a, b Txid
		want int
	}{
		{Txid{1, 5}, Txid{1, 5}, 0},
		{Txid{1, 5}, Txid{1, 6}, -1},
		{Txid{1, 6}, Txid{1, 5}, 1},
		{Txid{1, 9}, Txid{2, 1}, -1},
		{Txid{2, 1}, Txid{1, 9}, 1},
	} {
		assert.Equal(t, tc.want, compareTxid(tc.a, tc.b), "%v vs %v", tc.a, tc.b)
	}
}
