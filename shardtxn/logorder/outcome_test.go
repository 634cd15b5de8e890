package logorder_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A commit's answer waits, without a time limit, for the node to process
// its tid: the leader answers with the outcome it decided in log order,
// even when deciding took a fetch from another owner, and decides nothing
// twice.
func TestOutcomeWaitsForProcessing(t *testing.T) {
	cfg := config(3, 1)
	cfg.CacheSize = 0
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	d.put(t, ck, keyOn(0, cfg.Layout, "warm"), "up") // a leader
	l, ok := d.c.Leader(0)
	require.True(t, ok)
	x := keyOn((l+1)%3, cfg.Layout, "x") // the leader must ask for x's value
	d.put(t, ck, x, "1")
	tx := d.begin(t, ck, ck.LastTid())
	v, _ := d.get(t, tx, x)
	require.NoError(t, tx.Put(x, v+"+"))
	before := d.server(l).Stats()
	tid, o := d.commit(t, tx)
	after := d.server(l).Stats()
	assert.Equal(t, logorder.Applied, o)
	assert.Equal(t, logorder.Applied, d.decisions[l][tid], "the answer is the decision the leader processed")
	assert.Equal(t, before.Fetches+1, after.Fetches, "one fetch of x's value as of tid−1")
	assert.Equal(t, before.Redecided, after.Redecided, "nothing decided again")
	assert.Zero(t, d.server(l).Pending())
}

// Any node that has applied a commit's entry answers the commit retried
// there (its session table gives the tid): a node that processed the tid
// before anyone waited on it decides it again from the values as of the
// tid before, and answers alike.
func TestRetryAtAFollowerDecidedAgain(t *testing.T) {
	d := deploy(t, 1, config(3, 3))
	ck := d.clerk()
	d.put(t, ck, "a", "1")
	l, ok := d.c.Leader(0)
	require.True(t, ok)
	f := (l + 1) % 3
	r := d.raw()
	args := &logorder.CommitArgs{Session: rsm.Session{Client: 7, Seq: 1}, Txn: logorder.Txn{Snapshot: ck.LastTid(), Reads: []logorder.Read{{Key: "a", Value: "1", Found: true}}, Writes: []logorder.Write{{Key: "a", Value: "2"}}}}
	var first, again logorder.CommitReply
	r.call(t, l, "Server.Commit", args, &first)
	require.Equal(t, logorder.OK, first.Err)
	require.True(t, d.w.RunUntil(func() bool { return d.server(f).Processed() >= first.Tid }, time.Second))
	assert.Equal(t, logorder.Applied, d.decisions[f][first.Tid], "the follower decided the tid while no one waited on it")
	before := d.server(f).Stats().Redecided
	r.call(t, f, "Server.Commit", args, &again)
	assert.Equal(t, first, again, "the same tid and outcome")
	assert.Equal(t, before+1, d.server(f).Stats().Redecided, "decided again for the retry")
	assert.Zero(t, d.server(f).Pending())
}

// A commit retried after the versions as of the tid before its own were
// collected cannot be decided again: the leader answers ErrTooOld, which
// the clerk reports as ErrOutcomeUnknown.
func TestRetryAfterCollectionIsTooOld(t *testing.T) {
	cfg := config(1, 1)
	cfg.Versions, cfg.SnapshotEvery = 4, 1
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	d.put(t, ck, "a", "0")
	r := d.raw()
	args := &logorder.CommitArgs{Session: rsm.Session{Client: 7, Seq: 1}, Txn: logorder.Txn{Snapshot: ck.LastTid(), Reads: []logorder.Read{{Key: "a", Value: "0", Found: true}}, Writes: []logorder.Write{{Key: "a", Value: "1"}}}}
	var first, again logorder.CommitReply
	r.call(t, 0, "Server.Commit", args, &first)
	require.Equal(t, logorder.Applied, first.Outcome)
	for i := range 12 {
		d.put(t, ck, "b", fmt.Sprint(i))
	}
	r.call(t, 0, "Server.Commit", args, &again)
	assert.Equal(t, logorder.ErrTooOld, again.Err)
	assert.Equal(t, first.Tid, again.Tid, "the session table still knows the tid")
}
