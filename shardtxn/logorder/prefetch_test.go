package logorder_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node restarted from its snapshot decides again the transactions its
// own log holds after it, most of them with values it does not keep; with
// the commit cache off, every such decision asks another owner. Fetching
// for the transactions queued behind the one it decides while that one
// waits, it catches up within the failover scenario's 20 s on links that
// lose a tenth of the requests and a fifth of the replies; one fetch at a
// time, each lost one waiting out the RPC timeout, it took 25.6 s.
func TestRestartedNodePrefetches(t *testing.T) {
	cfg := config(5, 2)
	cfg.SnapshotEvery, cfg.CacheSize = 1024, 0
	d := deploy(t, 1, cfg)
	run := d.transfers(8)
	d.w.Run(time.Second)
	leader, ok := d.c.Leader(0)
	require.True(t, ok)
	node := (leader + 1) % 5
	require.True(t, d.w.RunUntil(func() bool { return d.server(node).Processed() >= 2000 }, time.Minute), "the clients reach tid 2000")
	at := d.server(node).Processed()
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(0, node)}))
	run.Stop()
	require.True(t, d.w.RunUntil(run.Finished, 10*time.Second))
	p := labrpc.DefaultParams()
	p.RequestLoss, p.ReplyLoss = 0.1, 0.2
	require.NoError(t, d.c.Net().SetParams(p))
	d.c.Net().Reliable(false)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: d.c.HostOf(0, node)}))
	restored := d.server(node).Processed()
	caught := d.w.RunUntil(func() bool { return d.server(node).Processed() >= at }, logordertest.FailoverCheck)
	assert.Less(t, restored, at-cfg.SnapshotEvery/2, "the node restarts far behind what its log holds")
	assert.True(t, caught, "caught up to tid %d: at %d", at, d.server(node).Processed())
	st := d.server(node).Stats()
	assert.Greater(t, st.Remote, (at-restored)/2, "most decisions ask another owner")
	assert.Empty(t, d.disagreement())
}
