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

// TestRenewalLeaseFromTheTryAnswered has the leader's answers to a
// clerk's renewals held back 5 s, past every try's timeout, for 1.5 s,
// longer than the clerk's lease, which runs out meanwhile; then it lets
// one answer through, and holds the rest back again. The renewal's lease
// runs from the try answered, which the lock service applied no sooner:
// the clerk serves from its cache at once. Counted from the renewal's
// first try, 1.5 s before, the lease would have ended before it was given,
// and the clerk would serve nothing until another renewal got through
// (swarm-locks' seed 4699: a fresh clerk, granted its lock late, waited
// for its first renewal until 650 ms after it was first sent, with a
// lease of 287 ms, and its read never completed).
func TestRenewalLeaseFromTheTryAnswered(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := deploy(t, 1, cfg)
	leader := d.leaderHost(t)
	a, _ := d.clerk(t, "a")
	d.get(t, a, "k") // a holds k shared, and renews it
	until, through := d.w.Now()+3*cfg.ClientLease()/2, false
	d.holdBack(t, "the leader's answers to renewals held back, but one", func(m labrpc.Message) time.Duration {
		if !m.IsReply || m.From != leader || m.Method != "LockServer.Renew" {
			return 0
		}
		if !through && d.w.Now() >= until {
			through = true
			return 0
		}
		return 5 * time.Second
	})
	require.True(t, d.w.RunUntil(func() bool { return through }, 2*time.Second), "a renewal's answer let through")
	d.w.Run(10 * d.hop()) // it arrives
	require.Len(t, a.Holdings(), 1)
	assert.Greater(t, a.Holdings()[0].LeaseEnd, d.w.Now()+cfg.ClientLease()-2*cfg.RPCTimeout, "the lease runs from the try answered")
	start := d.w.Now()
	v, _ := d.get(t, a, "k")
	assert.Equal(t, "", v)
	assert.Equal(t, cfg.CacheHit, d.w.Now()-start, "served from the cache")
}
