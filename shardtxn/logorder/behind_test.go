package logorder_test

import (
	"testing"
	"time"

	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node cut off from the log answers a read as of a tid it has not
// processed with ErrBehind once ReadWait has passed, rather than hold it
// until it catches up; it serves a read as of tid 0 at once. A commit
// retried after its tid was processed is answered by deciding it again,
// alike.
func TestBehindAndRetriedCommits(t *testing.T) {
	d := deploy(t, 1, config(3, 3))
	ck := d.clerk()
	l, cut, tid := d.cutOff(t, ck)
	r := d.raw()
	call := func(to int, method string, args, reply any) time.Duration { return r.call(t, to, method, args, reply) }
	r.assertBehind(t, cut, tid, "cut off")
	var get logorder.GetReply
	call(cut, "Server.Get", &logorder.GetArgs{Tid: 0, Keys: []string{"a"}}, &get)
	assert.Equal(t, logorder.OK, get.Err)
	assert.False(t, get.Values[0].Found, "nothing as of tid 0")

	// Ask the leader again for a commit it answered: the session table
	// gives its tid, and the leader decides it again from the values as
	// of the tid before.
	args := &logorder.CommitArgs{Session: rsm.Session{Client: 7, Seq: 1}, Txn: logorder.Txn{Snapshot: tid, Reads: []logorder.Read{{Key: "a", Value: "2", Found: true}}, Writes: []logorder.Write{{Key: "a", Value: "3"}}}}
	var first, again logorder.CommitReply
	call(l, "Server.Commit", args, &first)
	require.Equal(t, logorder.Applied, first.Outcome)
	d.w.Run(100 * time.Millisecond)
	before := d.server(l).Stats().Redecided
	call(l, "Server.Commit", args, &again)
	assert.Equal(t, first, again, "the same tid and outcome")
	assert.Equal(t, before+1, d.server(l).Stats().Redecided)
	assert.Zero(t, d.server(l).Pending())
}
