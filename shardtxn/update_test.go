package shardtxn_test

import (
	"testing"

	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpdate checks Clerk.Update: it reads the keys, asks for their new
// values given what it read, and sets them on the condition that they
// still hold what was read, or are still absent; a reason to give up
// ends it uncommitted, and a bad key is refused at once.
func TestUpdate(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	ck := txntest.Clerk(d.c, "client")
	a, b := d.keysOn()
	var read [][]shardtxn.Result
	update := func(next func([]shardtxn.Result) ([]string, string)) shardtxn.Outcome {
		return d.wait(t, "update", func(done func(shardtxn.Outcome)) error {
			return ck.Update([]string{a, b}, func(r []shardtxn.Result) ([]string, string) {
				read = append(read, r)
				return next(r)
			}, done)
		})
	}
	out := update(func([]shardtxn.Result) ([]string, string) { return []string{"1", "2"}, "" })
	require.True(t, out.Committed, out.Reason)
	assert.Equal(t, [][]shardtxn.Result{{{}, {}}}, read, "both keys were absent")
	out = update(func(r []shardtxn.Result) ([]string, string) { return []string{r[1].Value, r[0].Value}, "" })
	require.True(t, out.Committed, out.Reason)
	got := d.run(t, ck, shardtxn.Get(a), shardtxn.Get(b))
	assert.Equal(t, []shardtxn.Result{{Value: "2", Found: true}, {Value: "1", Found: true}}, got.Results, "swapped")

	out = update(func([]shardtxn.Result) ([]string, string) { return nil, "not today" })
	assert.Equal(t, shardtxn.Outcome{Reason: "not today"}, out)
	never := func(shardtxn.Outcome) { t.Error("a refused update ended") }
	keep := func(r []shardtxn.Result) ([]string, string) { return []string{"x", "y"}, "" }
	assert.EqualError(t, ck.Update([]string{a, ""}, keep, never), "shardtxn: get with an empty key")
}
