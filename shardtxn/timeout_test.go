package shardtxn_test

import (
	"math"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTransactionTimeout kills every replica of one shard while a
// transaction across it and another waits for its vote: the coordinator
// aborts the transaction once it is TxnTimeout old, the client hears so,
// and when the shard is back every lock is released.
func TestTransactionTimeout(t *testing.T) {
	t.Parallel()
	eachVariant(t, transactionTimeout)
}

func transactionTimeout(t *testing.T, cfg shardtxn.Config) {
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, 1, dep)
	a, b := d.keysOn()
	sb := shardtxn.ShardOf(b, 3)
	ck := txntest.Clerk(d.c, "client")
	require.True(t, d.run(t, ck, shardtxn.Get(a), shardtxn.Get(b)).Committed)
	for i := range d.c.Replicas(1 + sb) {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(1+sb, i)}))
	}
	start := d.w.Now()
	var out *shardtxn.Outcome
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "1"), shardtxn.Set(b, "1")}, func(o shardtxn.Outcome) { out = &o }))
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, 2*cfg.TxnTimeout), "the transaction ends")
	took := d.w.Now() - start
	assert.False(t, out.Committed)
	assert.Equal(t, "transaction timed out", out.Reason)
	assert.GreaterOrEqual(t, took, cfg.TxnTimeout)
	assert.Less(t, took, cfg.TxnTimeout+2*cfg.Tick, "aborted within two ticks of the timeout")
	require.NoError(t, d.c.Recover())
	assert.True(t, d.w.RunUntil(d.drained, 10*time.Second), "locks and the table drain once the shard is back")
	got := d.run(t, ck, shardtxn.Get(a), shardtxn.Get(b))
	assert.Equal(t, []shardtxn.Result{{}, {}}, got.Results, "nothing was written")
}

// TestConfigValidate checks that each setting that cannot work is named.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		set  func(*shardtxn.Config)
		want string
	}{
		{func(c *shardtxn.Config) { c.LockWait = 0 }, "shardtxn: LockWait 0s must be positive"},
		{func(c *shardtxn.Config) { c.TxnTimeout = -time.Second }, "shardtxn: TxnTimeout -1s must be positive"},
		{func(c *shardtxn.Config) { c.Tick = 0 }, "shardtxn: Tick 0s must be positive"},
		{func(c *shardtxn.Config) { c.RPCTimeout = 0 }, "shardtxn: RPCTimeout 0s must be positive"},
		{func(c *shardtxn.Config) { c.CleanupAge = 0 }, "shardtxn: CleanupAge 0s must be positive"},
		{func(c *shardtxn.Config) { c.RetryPause = -time.Millisecond }, "shardtxn: RetryPause -1ms must be positive"},
		{func(c *shardtxn.Config) { c.RetryMax = 0 }, "shardtxn: RetryMax 0s must be positive"},
		{func(c *shardtxn.Config) { c.RetryMax = c.RetryPause - 1 }, "shardtxn: RetryMax 9.999999ms is below RetryPause 10ms"},
		{func(c *shardtxn.Config) { c.RPCTimeout = math.MaxInt64 }, "shardtxn: RPCTimeout 2562047h47m16.854775807s is longer than a day (MaxSetting)"},
		{func(c *shardtxn.Config) { c.LockWait = shardtxn.MaxSetting + 1 }, "shardtxn: LockWait 24h0m0.000000001s is longer than a day (MaxSetting)"},
		{func(c *shardtxn.Config) { c.Conflicts = 2 }, "shardtxn: Conflicts Conflicts(2) is not LockWaits or WriteIntents"},
		{func(c *shardtxn.Config) { c.Presumption = 7 }, "shardtxn: Presumption Presumption(7) is not PresumedAbort or PresumedCommit"},
		{func(c *shardtxn.Config) { c.Discovery = 5 }, "shardtxn: Discovery Discovery(5) is not Redirect or ReplicaManager"},
		{func(c *shardtxn.Config) { c.RSM.MaxRaftState = 0 }, "rsm: MaxRaftState 0 must be positive, or -1 for no snapshots"},
	} {
		cfg := shardtxn.DefaultConfig()
		tc.set(&cfg)
		assert.EqualError(t, cfg.Validate(), tc.want)
		cc, err := txntest.Deployment{Shards: 1, Replicas: 1, Config: cfg}.Cluster()
		require.NoError(t, err)
		_, err = cluster.New(sim.NewWorld(1), cc)
		assert.ErrorContains(t, err, tc.want, "a deployment with the bad setting does not start")
	}
	assert.NoError(t, shardtxn.DefaultConfig().Validate())
	edges := shardtxn.DefaultConfig()
	edges.LockWait, edges.RetryPause, edges.RetryMax = shardtxn.MaxSetting, time.Nanosecond, time.Nanosecond
	assert.NoError(t, edges.Validate(), "MaxSetting itself, and a backoff that does not grow")
	assert.Equal(t, "write-intents/presumed-commit", shardtxn.WriteIntents.String()+"/"+shardtxn.PresumedCommit.String())
	assert.Equal(t, "lock-waits/presumed-abort", shardtxn.LockWaits.String()+"/"+shardtxn.PresumedAbort.String())
}

// TestFormats checks how ops and ids read in messages and logs.
func TestFormats(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "get k", shardtxn.Get("k").String())
	assert.Equal(t, `set k "v"`, shardtxn.Set("k", "v").String())
	assert.Equal(t, `cset k "v" if "w"`, shardtxn.CSet("k", "v", "w").String())
	assert.Equal(t, `cset k "v" if absent`, shardtxn.CSetAbsent("k", "v").String())
	assert.Equal(t, `append k "1"`, shardtxn.Append("k", "1").String())
	assert.Equal(t, "read k", shardtxn.Read("k").String())
	assert.Equal(t, "del k", shardtxn.Del("k").String())
	assert.Equal(t, "OpKind(9)", shardtxn.OpKind(9).String())
	assert.Equal(t, "3.7", shardtxn.Txid{Client: 3, Seq: 7}.String())
}
