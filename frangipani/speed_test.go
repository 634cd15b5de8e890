package frangipani_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvdeploy"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A speedEnv is one client of a key/value service on three servers, on
// the lab's LAN with 20 µs of CPU per message.
type speedEnv struct {
	w  *sim.World
	c  *cluster.Cluster
	kv workload.KV
}

func newSpeedEnv(t simtest.T, seed int64, group cluster.Group, clerk func(c *cluster.Cluster, h *sim.Host) workload.KV) *speedEnv {
	w := sim.NewWorld(seed)
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{group}})
	require.NoError(t, err)
	p := c.Net().Params()
	p.ServiceTime = 20 * time.Microsecond
	require.NoError(t, c.Net().SetParams(p))
	e := &speedEnv{w: w, c: c, kv: clerk(c, c.NewClient("client"))}
	done := false
	e.kv.Put("warm", "up", func() { done = true }) // a leader is elected
	require.True(t, w.RunUntil(func() bool { return done }, 10*time.Second))
	return e
}

// speed runs the report's speed test (1000 Appends to one key, one after
// another) and returns the virtual time per Append and the RPCs sent.
func (e *speedEnv) speed(t simtest.T) (time.Duration, int) {
	rpcs, start := e.c.Net().GetTotalCount(), e.w.Now()
	n := 0
	var next func()
	next = func() {
		if n++; n <= 1000 {
			e.kv.Append("k", "x", next)
		}
	}
	next()
	require.True(t, e.w.RunUntil(func() bool { return n > 1000 }, 10*time.Minute))
	return (e.w.Now() - start) / 1000, e.c.Net().GetTotalCount() - rpcs
}

// basic runs the report's basic test (one client on one key, a mix of
// Get, Put and Append with no pause, for d) and returns its operations
// per virtual second and the RPCs sent.
func (e *speedEnv) basic(d time.Duration) (float64, int) {
	rpcs, ops := e.c.Net().GetTotalCount(), 0
	run := workload.Start(e.w, []workload.KV{e.kv}, workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: workload.Own(),
		Done: func(int, workload.Kind, time.Duration, time.Duration) { ops++ }})
	e.w.Run(d)
	run.Stop()
	return float64(ops) / d.Seconds(), e.c.Net().GetTotalCount() - rpcs
}

func kvGroup(heartbeatOnly bool) cluster.Group {
	rc := raft.LabConfig()
	rc.HeartbeatOnly = heartbeatOnly
	return cluster.Group{Name: "kv", Replicas: 3, Factory: kvdeploy.Factory(-1, kvraft.Options{Raft: rc})}
}

func kvClerk(c *cluster.Cluster, h *sim.Host) workload.KV {
	return kvraft.MakeClerk(h, c.Ends(h, 0, nil))
}

func lockClerk(t simtest.T, cfg frangipani.Config) func(c *cluster.Cluster, h *sim.Host) workload.KV {
	return func(c *cluster.Cluster, h *sim.Host) workload.KV {
		ck, err := frangipanitest.Deployment{Config: cfg}.Clerk(c, h)
		require.NoError(t, err)
		return frangipanitest.CachingKV{Clerk: ck}
	}
}

// TestThousandTimesFaster measures, in virtual time, the report's basic
// and speed tests for kvraft replicating on heartbeats only, kvraft
// replicating on Start, and frangipani, and checks frangipani's one
// client against kvraft on Start: at least 1000 times the operations per
// virtual second, and 1000 Appends in less than two thousandths of
// kvraft's time plus one cache hit per Append: the one lock acquisition
// (about two kvraft operations: the first Append waits for its acquire
// through the lock service's log) amortized over 1000, and the cache hits.
func TestThousandTimesFaster(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := frangipanitest.Deployment{Replicas: 3, Config: cfg}
	cc, err := d.Cluster()
	require.NoError(t, err)
	type row struct {
		name  string
		group cluster.Group
		clerk func(c *cluster.Cluster, h *sim.Host) workload.KV
		basic time.Duration
	}
	rows := []row{
		{"kvraft, replicating on heartbeats", kvGroup(true), kvClerk, 3 * time.Second},
		{"kvraft, replicating on Start", kvGroup(false), kvClerk, 3 * time.Second},
		// About a million operations a second from the cache: 50 ms are
		// tens of thousands, the first one's acquire a fiftieth of them.
		{"frangipani", cc.Groups[0], lockClerk(t, cfg), 50 * time.Millisecond},
	}
	seed := simtest.Seeds(t, 1)[0]
	var perOp []time.Duration
	var rates []float64
	for _, r := range rows {
		e := newSpeedEnv(t, seed, r.group, r.clerk)
		op, speedRPCs := e.speed(t)
		rate, basicRPCs := e.basic(r.basic)
		perOp, rates = append(perOp, op), append(rates, rate)
		t.Logf("%-34s basic: %9.0f ops/s (%d RPCs in %v)   speed: %10v per Append (%d RPCs)", r.name, rate, basicRPCs, r.basic, op, speedRPCs)
	}
	t.Logf("frangipani against kvraft on Start: %.0f× the operations per second, %.0f× faster per Append", rates[2]/rates[1], float64(perOp[1])/float64(perOp[2]))
	assert.GreaterOrEqual(t, rates[2], 1000*rates[1], "ops per virtual second, frangipani against kvraft on Start")
	assert.Less(t, perOp[2], 2*perOp[1]/1000+cfg.CacheHit, "time per Append, frangipani against kvraft on Start")
}

// BenchmarkCacheHit measures the wall time of an Append served from the
// cache, world included: the cost Config.CacheHit models in virtual time.
func BenchmarkCacheHit(b *testing.B) {
	cfg := frangipani.DefaultConfig()
	d := frangipanitest.Deployment{Replicas: 3, Config: cfg}
	cc, err := d.Cluster()
	require.NoError(b, err)
	e := newSpeedEnv(b, 1, cc.Groups[0], lockClerk(b, cfg))
	n := 0
	var next func()
	next = func() {
		if n++; n <= b.N {
			e.kv.Put("k", "x", next)
		}
	}
	b.ResetTimer()
	next()
	e.w.RunUntil(func() bool { return n > b.N }, time.Hour)
}

// contention runs n clients on one key, each pausing up to think between
// operations, for d on a reliable network, and returns the operations per
// virtual second.
func contention(t simtest.T, seed int64, n int, think, d time.Duration, group cluster.Group, clerk func(c *cluster.Cluster, h *sim.Host) workload.KV) float64 {
	e := newSpeedEnv(t, seed, group, clerk)
	clients := []workload.KV{e.kv}
	for i := 1; i < n; i++ {
		clients = append(clients, clerk(e.c, e.c.NewClient(fmt.Sprintf("client%d", i))))
	}
	ops := 0
	run := workload.Start(e.w, clients, workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: workload.Uniform(1), Think: think,
		Done: func(int, workload.Kind, time.Duration, time.Duration) { ops++ }})
	e.w.Run(d)
	run.Stop()
	return float64(ops) / d.Seconds()
}

// TestContention measures five clients on one key, pausing up to 5 ms
// between operations, for half a second (about 650 operations), on
// frangipani, and on frangipani taking a lock for every operation as the
// report's does, against kvraft on Start, and checks frangipani's share
// of kvraft's throughput: at least 0.8 (the goal was 0.5; the
// report got a tenth). With locks only, each hand-over of the lock serves
// about one operation, and the key's clients queue for it: below kvraft;
// the lock service performing the operations of a key that moves from
// client to client takes one entry each, as kvraft does. Then five
// clients work the key back to back for 50 ms: each takes the lock and
// serves a burst from its cache per hand-over, as with locks only,
// hundreds of times kvraft's throughput.
func TestContention(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	only := cfg
	only.LocksOnly = true
	cc, err := frangipanitest.Deployment{Replicas: 3, Config: cfg}.Cluster()
	require.NoError(t, err)
	seed := simtest.Seeds(t, 1)[0]
	think, d := 5*time.Millisecond, 500*time.Millisecond
	kv := contention(t, seed, 5, think, d, kvGroup(false), kvClerk)
	fr := contention(t, seed, 5, think, d, cc.Groups[0], lockClerk(t, cfg))
	lo := contention(t, seed, 5, think, d, cc.Groups[0], lockClerk(t, only))
	t.Logf("5 clients on 1 key: kvraft on Start %.0f ops/s, frangipani %.0f ops/s (%.2f×), with locks only %.0f ops/s (%.2f×)", kv, fr, fr/kv, lo, lo/kv)
	assert.GreaterOrEqual(t, fr, 0.8*kv, "one key: frangipani against kvraft on Start")
	assert.Less(t, lo, kv, "one key: with locks only, one operation per hand-over")
	d = 50 * time.Millisecond
	fr = contention(t, seed, 5, 0, d, cc.Groups[0], lockClerk(t, cfg))
	lo = contention(t, seed, 5, 0, d, cc.Groups[0], lockClerk(t, only))
	t.Logf("5 clients back to back on 1 key: frangipani %.0f ops/s, with locks only %.0f ops/s", fr, lo)
	assert.GreaterOrEqual(t, fr, 0.8*lo, "back to back: frangipani against locks only")
	assert.Greater(t, lo, 100*kv, "back to back: a burst from the cache per hand-over")
}
