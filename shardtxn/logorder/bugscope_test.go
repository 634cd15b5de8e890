package logorder_test

import (
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planted returns cfg with the planted bug whose name contains name.
func planted(t *testing.T, cfg logorder.Config, name string) logorder.Config {
	t.Helper()
	for _, b := range logorder.PlantedBugs() {
		if strings.Contains(b.Name, name) {
			b.Plant(&cfg)
			return cfg
		}
	}
	t.Fatalf("no planted bug %q", name)
	return cfg
}

// The planted "rule of its own" is node 0's alone: it takes the values a
// transaction read of other nodes' keys as they are, and applies a
// transaction that read a stale value, which node 1, asking node 2 for
// the value, ignores. The test sees each node's decisions (OnDecide).
func TestPlantedLocalRuleIsNodeZeros(t *testing.T) {
	cfg := planted(t, config(3, 1), "rule of its own")
	cfg.CacheSize = 0 // node 0 would take node 2's key from its cache
	d := deploy(t, 1, cfg)
	ck := d.clerk()
	mine, yours, theirs := keyOn(0, cfg.Layout, "m"), keyOn(1, cfg.Layout, "y"), keyOn(2, cfg.Layout, "t")
	d.put(t, ck, theirs, "new")
	l, ok := d.c.Leader(0)
	require.True(t, ok)
	stale := logorder.Txn{Snapshot: ck.LastTid(), Reads: []logorder.Read{{Key: theirs, Value: "old", Found: true}},
		Writes: []logorder.Write{{Key: mine, Value: "x"}, {Key: yours, Value: "x"}}}
	var reply logorder.CommitReply
	d.raw().call(t, l, "Server.Commit", &logorder.CommitArgs{Session: rsm.Session{Client: 7, Seq: 1}, Txn: stale}, &reply)
	require.Equal(t, logorder.OK, reply.Err)
	require.True(t, d.w.RunUntil(func() bool { return d.server(0).Processed() >= reply.Tid && d.server(1).Processed() >= reply.Tid }, time.Second))
	assert.Equal(t, logorder.Applied, d.decisions[0][reply.Tid], "node 0 ignores the stale read of node 2's key")
	assert.Equal(t, logorder.ConflictIgnored, d.decisions[1][reply.Tid])
	assert.NotEmpty(t, d.disagreement())
}

// The planted early reads are a restarted node's: a node that was only cut
// off from the log waits ReadWait for a tid it has not processed, then
// answers ErrBehind; restarted, still cut off, it serves the read at once
// from the state it has, missing the newest write.
func TestPlantedEarlyReadsAfterRestartOnly(t *testing.T) {
	cfg := planted(t, config(3, 3), "before it has caught up")
	d := deploy(t, 1, cfg)
	_, cut, tid := d.cutOff(t, d.clerk())
	r := d.raw()
	r.assertBehind(t, cut, tid, "cut off, never restarted: no early read")

	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, cut)}))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, cut)}))
	var get logorder.GetReply
	r.call(t, cut, "Server.Get", &logorder.GetArgs{Tid: tid, Keys: []string{"a"}}, &get)
	assert.Equal(t, logorder.OK, get.Err, "restarted: the planted bug serves at once")
	assert.NotEqual(t, "2", get.Values[0].Value, "without the newest write")
}
