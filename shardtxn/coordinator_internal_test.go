package shardtxn

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFirstDecisionStands checks that the table keeps a transaction's
// first decision: a later one (a commit on votes that arrive after the
// timeout's abort) returns the first, and changes nothing.
func TestFirstDecisionStands(t *testing.T) {
	t.Parallel()
	c := newCoordinator(2, PresumedAbort, bugs{})
	id := Txid{Client: 1, Seq: 1}
	assert.Equal(t, coordResult{State: preparing, Known: true}, c.begin(&beginCmd{ID: id, Ops: []Op{Set("k", "v")}}))
	abort := coordResult{State: aborted, Reason: "transaction timed out", Known: true}
	assert.Equal(t, abort, c.decide(decision{ID: id, Reason: "transaction timed out"}))
	assert.Equal(t, abort, c.decide(decision{ID: id, Commit: true, Results: []Result{{}}}))
	assert.Equal(t, abort, c.lookup(id))
	assert.Equal(t, outcome{Seq: 1, State: aborted, Reason: "transaction timed out"}, c.outcomes[1])
}

// TestLateRetry checks what the table answers a client's transaction
// after its entry is finished: its outcome, or if the client has gone on
// to a later transaction, that it was superseded; and that a retry does
// not enter it again.
func TestLateRetry(t *testing.T) {
	t.Parallel()
	c := newCoordinator(2, PresumedAbort, bugs{})
	first, second := Txid{Client: 1, Seq: 1}, Txid{Client: 1, Seq: 2}
	for _, id := range []Txid{first, second} {
		c.begin(&beginCmd{ID: id, Ops: []Op{Get("k")}})
		c.decide(decision{ID: id, Commit: true, Results: []Result{{Value: id.String()}}})
		c.Apply(coordCmd{Finish: []Txid{id}})
	}
	require.Empty(t, c.txns)
	assert.Equal(t, coordResult{State: committed, Results: []Result{{Value: "1.2"}}, Known: true}, c.begin(&beginCmd{ID: second}))
	assert.Equal(t, coordResult{State: aborted, Reason: "superseded by the client's next transaction", Known: true}, c.begin(&beginCmd{ID: first}))
	assert.Empty(t, c.txns)
}

// TestCoordinatorRestore checks that the table restores from its snapshot,
// from none (empty), and refuses a corrupt one with an error.
func TestCoordinatorRestore(t *testing.T) {
	t.Parallel()
	c := newCoordinator(2, PresumedAbort, bugs{})
	id := Txid{Client: 1, Seq: 1}
	c.begin(&beginCmd{ID: id, Ops: []Op{Set("k", "v")}})
	c.decide(decision{ID: id, Reason: "no"})
	snap := c.Snapshot()

	r := newCoordinator(2, PresumedAbort, bugs{})
	require.NoError(t, r.Restore(snap))
	assert.Equal(t, c.txns, r.txns)
	assert.Equal(t, c.outcomes, r.outcomes)
	require.NoError(t, r.Restore(nil))
	assert.Empty(t, r.txns)
	assert.Empty(t, r.outcomes)
	assert.Error(t, r.Restore([]byte("not a snapshot")))
}
