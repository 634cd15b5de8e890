package shardtxn_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoRetryClerkGivesUpOnACrash is paper 003's client, which does not
// retry, under paper 003's design: the transaction in flight when the
// coordinator leader's host dies ends unheard (counted failed, though it
// may have committed), so do those sent to the dead leader while the
// replica manager still names it, and once a new leader has told the
// directory, transactions commit again. A clerk that retries (the
// default) loses none of them.
func TestNoRetryClerkGivesUpOnACrash(t *testing.T) {
	t.Parallel()
	cfg := shardtxn.DefaultConfig()
	cfg.Conflicts, cfg.Presumption, cfg.Discovery = shardtxn.WriteIntents, shardtxn.PresumedCommit, shardtxn.ReplicaManager
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, 1, dep)
	paper, ours := txntest.Clerk(d.c, "paper"), txntest.Clerk(d.c, "ours")
	require.NoError(t, paper.NoRetry())
	keys := d.freshKeys("k")
	write := func(ck *shardtxn.Clerk, v string) shardtxn.Outcome {
		return d.run(t, ck, shardtxn.Set(keys[0], v), shardtxn.Set(keys[1], v))
	}
	require.True(t, write(paper, "0").Committed, "without faults the one try commits")

	_, host, ok := d.coordLeader()
	require.True(t, ok)
	var inFlight, retried *shardtxn.Outcome
	var heard time.Duration
	require.NoError(t, paper.Txn([]shardtxn.Op{shardtxn.Set(keys[0], "1"), shardtxn.Set(keys[1], "1")}, func(o shardtxn.Outcome) { inFlight, heard = &o, d.w.Now() }))
	require.NoError(t, ours.Txn([]shardtxn.Op{shardtxn.Set(keys[0]+"x", "1"), shardtxn.Set(keys[1]+"x", "1")}, func(o shardtxn.Outcome) { retried = &o }))
	d.w.Run(time.Millisecond) // the transactions are on their way
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: host}))
	kill := d.w.Now()
	require.True(t, d.w.RunUntil(func() bool { return inFlight != nil }, 30*time.Second))
	assert.True(t, inFlight.Unheard, "the host's death failed the one try")
	assert.False(t, inFlight.Committed)
	assert.Less(t, heard-kill, 200*time.Millisecond, "the try failed as the host died, without a timeout")

	unheard := 0
	for i := 0; ; i++ {
		out := write(paper, "2")
		if out.Committed {
			break
		}
		require.True(t, out.Unheard, "a failure is a try that heard nothing, not an abort: %s", out.Reason)
		require.Less(t, i, 100, "no transaction committed after the crash")
		unheard++
	}
	assert.Positive(t, unheard, "while the directory still named the dead leader, tries went there and failed")
	t.Logf("killed at %v, the try in flight failed at %v, then %d more before one committed at %v", kill, heard, unheard, d.w.Now())
	require.True(t, d.w.RunUntil(func() bool { return retried != nil }, 30*time.Second))
	assert.True(t, retried.Committed, "the clerk that retries heard the decision from the new leader")
	assert.False(t, retried.Unheard)
}
