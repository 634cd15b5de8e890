package logorder_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
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

// A node that a read asks to go farBehind tids or more past what it has
// processed answers ErrBehind at once, marked Far (its callers avoid it
// while it catches up); with HoldReads, as the paper's servers did, it
// holds the read until it has caught up instead.
func TestFarBehindAndHeldReads(t *testing.T) {
	for _, hold := range []bool{false, true} {
		cfg := config(3, 3)
		cfg.HoldReads = hold
		d := deploy(t, 1, cfg)
		ck := d.clerk()
		_, cut, _ := d.cutOff(t, ck)
		var tid int
		for i := range 300 {
			tid = d.put(t, ck, "a", fmt.Sprint(i))
		}
		r := d.raw()
		var get logorder.GetReply
		ended, start := false, d.w.Now()
		var took time.Duration
		r.ends[cut].Call("Server.Get", &logorder.GetArgs{Tid: tid, Keys: []string{"a"}}, &get, func(bool) { ended, took = true, d.w.Now()-start })
		d.w.Run(time.Second)
		if !hold {
			require.True(t, ended)
			assert.Equal(t, logorder.ErrBehind, get.Err)
			assert.True(t, get.Far, "marked far behind")
			assert.Less(t, took, cfg.ReadWait, "at once, not after ReadWait")
			// The edge: 256 tids past what the node processed is far; 255
			// is waited for.
			p := d.server(cut).Processed()
			for _, c := range []struct {
				tid  int
				far  bool
				wait time.Duration
			}{{p + 256, true, 0}, {p + 255, false, cfg.ReadWait}} {
				get = logorder.GetReply{}
				took := r.call(t, cut, "Server.Get", &logorder.GetArgs{Tid: c.tid, Keys: []string{"a"}}, &get)
				assert.Equal(t, c.far, get.Far, "tid %d, %d past", c.tid, c.tid-p)
				assert.GreaterOrEqual(t, took, c.wait)
			}
			continue
		}
		assert.False(t, ended, "HoldReads: held while the node is cut off")
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Heal}))
		d.runUntil(t, "the held read", &ended)
		assert.Equal(t, logorder.OK, get.Err, "answered once caught up")
		assert.Equal(t, "299", get.Values[0].Value)
	}
}
