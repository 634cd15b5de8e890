package frangipani_test

import (
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leaderHost returns the host of the lock service's leader, once one
// leads.
func (d *deployment) leaderHost(t *testing.T) *sim.Host {
	t.Helper()
	d.value(t, "") // a lock server leads
	l, _ := d.c.Leader(0)
	return d.c.Hosts()[d.c.HostOf(0, l)]
}

// holdBack puts rule in force through the monkey, under name.
func (d *deployment) holdBack(t *testing.T, name string, rule labrpc.DelayRule) {
	t.Helper()
	require.NoError(t, d.c.Monkey().DefineDelayRule(name, rule))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.DelayRule, Name: name}))
}

// TestAnswersPastTheTimeoutTaken has the lock service's leader answer
// every clerk's request later than the clerk's RPC timeout (its replies
// held back RPCTimeout and 50 ms more; the other lock servers say at once
// that they do not lead), as a leader does whose commits take about as
// long as the timeout (swarm-locks' seed 4699: a 54 ms timeout, commits
// of 40-90 ms on a lossy network), or one that holds a queued acquire's
// answer until the lock is granted. The clerks must take the answer of a
// try that timed out: every later try is answered as late, so a clerk
// that waits for the answer to its latest try gets none, and its
// operations never complete.
func TestAnswersPastTheTimeoutTaken(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := deploy(t, 1, cfg)
	leader := d.leaderHost(t)
	late := cfg.RPCTimeout + 50*time.Millisecond
	d.holdBack(t, "the leader's answers held back past the clerks' timeout", func(m labrpc.Message) time.Duration {
		if m.IsReply && m.From == leader && strings.HasPrefix(m.Method, "LockServer.") {
			return late
		}
		return 0
	})
	a, _ := d.clerk(t, "a")
	b, _ := d.clerk(t, "b")
	start := d.w.Now()
	d.put(t, a, "k", "a's")
	assert.Less(t, d.w.Now()-start, 2*late, "a's put: its first try's answer")
	v, _ := d.get(t, b, "k")
	assert.Equal(t, "a's", v, "b reads a's write, flushed on revocation")
	d.append(t, a, "k", ", a's again")
	v, _ = d.get(t, b, "k")
	assert.Equal(t, "a's, a's again", v)
	assert.Zero(t, a.Lost()+b.Lost())
}
