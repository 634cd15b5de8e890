package shardtxn_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"

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

// TestUpdatesBackOff has sixteen clerks transfer between four keys on two
// shards, over and over for 20 s, on an unreliable network (messages
// lost and held back up to 27 ms, longer than a lock wait): an update
// that began again at once after a lock wait gave up took its locks again
// while the others still held theirs, and the clerks thrashed (8
// transfers committed). An update pauses a random, growing time before
// it begins again (46 committed).
func TestUpdatesBackOff(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	a, b := d.keysOn()
	keys := []string{a, b, a + "x", b + "x"}
	open := make([]shardtxn.Op, len(keys))
	for i, k := range keys {
		open[i] = shardtxn.Set(k, "100")
	}
	d.run(t, txntest.Clerk(d.c, "opener"), open...)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Unreliable, On: true}))
	committed, ended := 0, 0
	stop := false
	for i := range 16 {
		ck := txntest.Clerk(d.c, fmt.Sprintf("client%d", i))
		var next func()
		next = func() {
			if stop {
				return
			}
			from := keys[d.w.Rand().IntN(len(keys))]
			to := keys[(slices.Index(keys, from)+1+d.w.Rand().IntN(len(keys)-1))%len(keys)]
			require.NoError(t, ck.Xfer(from, to, 1, func(o shardtxn.Outcome) {
				ended++
				if o.Committed {
					committed++
				}
				next()
			}))
		}
		next()
	}
	d.w.Run(20 * time.Second)
	stop = true
	t.Logf("%d of %d transfers committed", committed, ended)
	assert.Greater(t, committed, 25, "transfers committed in 20 s")
}
