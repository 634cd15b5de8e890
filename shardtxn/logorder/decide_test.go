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

// With the commit cache, a node decides a transaction that writes none of
// its keys when it can answer every read itself: a blind write (no reads),
// whose writes it then caches, and a transaction that reads only keys
// whose values it holds, which it decides from the cache without asking
// the owner. A node whose cache lacks a value skips the transaction.
func TestCacheDecidesWhatItCanAnswer(t *testing.T) {
	cfg := config(3, 1)
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	d.put(t, ck, keyOn(0, cfg.Layout, "warm"), "up") // a leader
	l, ok := d.c.Leader(0)
	require.True(t, ok)
	node, owner := (l+1)%3, (l+2)%3 // node keeps neither key; nor does the leader
	x := keyOn(owner, cfg.Layout, "x")
	settled := func() {
		t.Helper()
		require.True(t, d.w.RunUntil(func() bool { return d.server(node).Processed() >= ck.LastTid() }, time.Second))
	}

	settled()
	before := d.server(node).Stats()
	d.put(t, ck, x, "1")
	settled()
	after := d.server(node).Stats()
	assert.Equal(t, before.Decided+1, after.Decided, "a blind write: nothing to read, so the node decides it")
	assert.Equal(t, before.Skipped, after.Skipped)
	assert.Equal(t, logorder.Applied, d.decisions[node][ck.LastTid()])

	tx := d.begin(t, ck, ck.LastTid())
	v, _ := d.get(t, tx, x)
	require.NoError(t, tx.Put(x, v+"+"))
	before = after
	d.commit(t, tx)
	settled()
	after = d.server(node).Stats()
	assert.Equal(t, before.Decided+1, after.Decided, "x's value is in the cache: the node decides the transaction")
	assert.Equal(t, before.CacheHits+1, after.CacheHits)
	assert.Equal(t, before.Fetches, after.Fetches, "without asking x's owner")
	assert.Equal(t, before.Skipped, after.Skipped)
	assert.Equal(t, before.CacheSaved+1, after.CacheSaved, "the cache spared the decision a fetch")
	assert.Equal(t, before.Remote, after.Remote)

	// A transaction that reads a key the node has never seen written.
	y := keyOn(owner, cfg.Layout, "y")
	tx = d.begin(t, ck, ck.LastTid())
	d.get(t, tx, y)
	require.NoError(t, tx.Put(x, "2"))
	before = after
	d.commit(t, tx)
	settled()
	after = d.server(node).Stats()
	assert.Equal(t, before.Skipped+1, after.Skipped, "y's value is not cached: the node skips the transaction")
	assert.Equal(t, before.Decided, after.Decided)
	assert.Equal(t, before.Fetches, after.Fetches)

	// One that reads y and writes the node's own key: the node must decide
	// it, and asks y's owner.
	tx = d.begin(t, ck, ck.LastTid())
	d.get(t, tx, y)
	require.NoError(t, tx.Put(keyOn(node, cfg.Layout, "z"), "1"))
	before = after
	d.commit(t, tx)
	require.True(t, d.w.RunUntil(func() bool { return d.server(node).Stats().Fetches > before.Fetches }, time.Second))
	mid := d.server(node).Stats()
	assert.Equal(t, before.Decided, mid.Decided, "y's value asked for, not yet here")
	assert.Equal(t, before.Remote, mid.Remote, "a decision counts as remote when it ends, as Decided does")
	settled()
	after = d.server(node).Stats()
	assert.Equal(t, before.Decided+1, after.Decided)
	assert.Equal(t, before.Fetches+1, after.Fetches, "y's value is fetched")
	assert.Equal(t, before.Remote+1, after.Remote, "a decision that asked another owner")
	assert.Equal(t, before.CacheSaved, after.CacheSaved)
	assert.Empty(t, d.disagreement())
}

// A transaction's snapshot must be before its own tid: one whose snapshot
// is its own tid is logged and rejected, as one from further on is.
func TestSnapshotAtOwnTidRejected(t *testing.T) {
	d := deploy(t, 1, config(3, 3))
	ck := d.clerk()
	tid := d.put(t, ck, "a", "1")
	l, ok := d.c.Leader(0)
	require.True(t, ok)
	next := tid + 1 // the tid the log gives the next entry
	args := &logorder.CommitArgs{Session: rsm.Session{Client: 7, Seq: 1}, Txn: logorder.Txn{Snapshot: next, Writes: []logorder.Write{{Key: "a", Value: "2"}}}}
	var reply logorder.CommitReply
	d.raw().call(t, l, "Server.Commit", args, &reply)
	require.Equal(t, next, reply.Tid)
	assert.Equal(t, logorder.ErrBadRequest, reply.Err)
	assert.Equal(t, logorder.Rejected, reply.Outcome)
	assert.Equal(t, fmt.Sprintf("logorder: snapshot tid %d is not before the transaction's tid %d", next, next), reply.Reason)
	v, _ := d.get(t, d.begin(t, ck, next), "a")
	assert.Equal(t, "1", v, "nothing applied")
}
