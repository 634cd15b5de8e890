package shardtxn_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOperations runs each of paper 000's operations once, on one client,
// across three shards.
func TestOperations(t *testing.T) {
	t.Parallel()
	eachVariant(t, operations)
}

func operations(t *testing.T, cfg shardtxn.Config) {
	simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
		d := deploy(t, seed, standard(cfg))
		ck := txntest.Clerk(d.c, "client")
		get := func(key string) shardtxn.Result {
			out := d.run(t, ck, shardtxn.Get(key))
			require.True(t, out.Committed, out.Reason)
			return out.Results[0]
		}
		assert.Equal(t, shardtxn.Result{}, get("a"), "a key never set is not found")
		require.True(t, d.run(t, ck, shardtxn.Set("a", "1")).Committed)
		assert.Equal(t, shardtxn.Result{Value: "1", Found: true}, get("a"))

		// One transaction over keys on every shard, folded: the first set
		// of x is dropped, the get of y sees the set before it.
		out := d.run(t, ck, shardtxn.Set("x", "lost"), shardtxn.Set("y", "2"), shardtxn.Set("x", "3"), shardtxn.Get("y"), shardtxn.Set("z", "4"))
		require.True(t, out.Committed, out.Reason)
		assert.Equal(t, shardtxn.Result{Value: "2", Found: true}, out.Results[3])
		assert.Equal(t, "3", get("x").Value)

		require.True(t, d.run(t, ck, shardtxn.Del("x"), shardtxn.Del("never")).Committed, "del is idempotent")
		assert.False(t, get("x").Found)

		out = d.run(t, ck, shardtxn.CSet("a", "5", "wrong"))
		assert.False(t, out.Committed)
		assert.Contains(t, out.Reason, "condition failed")
		require.True(t, d.run(t, ck, shardtxn.CSet("a", "5", "1"), shardtxn.CSetAbsent("new", "6")).Committed)
		assert.Equal(t, "5", get("a").Value)
		assert.Equal(t, "6", get("new").Value)

		require.True(t, d.wait(t, "add", func(done func(shardtxn.Outcome)) error { return ck.Add("a", 10, done) }).Committed)
		assert.Equal(t, "15", get("a").Value)
		require.True(t, d.wait(t, "xfer", func(done func(shardtxn.Outcome)) error { return ck.Xfer("a", "y", 7, done) }).Committed)
		assert.Equal(t, []string{"8", "9"}, []string{get("a").Value, get("y").Value})
		out = d.wait(t, "xfer", func(done func(shardtxn.Outcome)) error { return ck.Xfer("a", "y", 70, done) })
		assert.False(t, out.Committed)
		assert.Equal(t, "a holds 8, less than 70", out.Reason)
		require.True(t, d.wait(t, "xfer", func(done func(shardtxn.Outcome)) error { return ck.Xfer("a", "y", 8, done) }).Committed, "all of a balance moves")
		assert.Equal(t, []string{"0", "17"}, []string{get("a").Value, get("y").Value})
		out = d.wait(t, "add", func(done func(shardtxn.Outcome)) error { return ck.Add("missing", 1, done) })
		assert.False(t, out.Committed)

		require.True(t, d.run(t, ck, shardtxn.Append("l", "1"), shardtxn.Append("l", "2")).Committed)
		out = d.run(t, ck, shardtxn.Read("l"), shardtxn.Read("none"))
		assert.Equal(t, []shardtxn.Result{{Found: true, List: []string{"1", "2"}}, {}}, out.Results)

		assert.True(t, d.w.RunUntil(d.drained, 5*time.Second), "locks and the table drain")
		return result(t, d)
	})
}

// TestBadInput checks that malformed operations are refused at once, with
// an error naming what is wrong, and that nothing is sent.
func TestBadInput(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	ck := txntest.Clerk(d.c, "client")
	never := func(shardtxn.Outcome) { t.Error("a refused transaction ended") }
	for _, tc := range []struct {
		ops  []shardtxn.Op
		want string
	}{
		{nil, "shardtxn: an empty transaction"},
		{[]shardtxn.Op{{Kind: 42, Key: "k"}}, `shardtxn: unknown operation 42 on key "k"`},
		{[]shardtxn.Op{shardtxn.Get("")}, "shardtxn: get with an empty key"},
		{[]shardtxn.Op{shardtxn.Set(string(make([]byte, shardtxn.MaxKey+1)), "v")}, "shardtxn: set: key of 257 bytes (at most 256)"},
		{[]shardtxn.Op{shardtxn.Set("k", string(make([]byte, shardtxn.MaxValue+1)))}, "shardtxn: set k: value of 65537 bytes (at most 65536)"},
		{[]shardtxn.Op{shardtxn.Append("k", "a b")}, `shardtxn: append k "a b": an element must be non-empty and hold no space`},
		{make([]shardtxn.Op, shardtxn.MaxOps+1), "shardtxn: a transaction of 1025 operations (at most 1024)"},
	} {
		assert.EqualError(t, ck.Txn(tc.ops, never), tc.want)
	}
	assert.EqualError(t, ck.Xfer("a", "a", 1, never), `shardtxn: xfer from "a" to itself`)
	assert.EqualError(t, ck.Xfer("a", "b", -1, never), "shardtxn: xfer of a negative amount -1")
	assert.EqualError(t, ck.Add("", 1, never), "shardtxn: get with an empty key")
	// Had a refused transaction been sent, the clerk would still be busy
	// with it, and would refuse this one.
	assert.True(t, d.run(t, ck, shardtxn.Set("k", "v")).Committed)
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Get("k")}, func(shardtxn.Outcome) {}))
	assert.EqualError(t, ck.Txn([]shardtxn.Op{shardtxn.Get("k")}, never), "shardtxn: clerk "+strconv.FormatInt(ck.ID(), 10)+": Txn while a transaction is in progress; a clerk runs one at a time")
}
