package shardtxn_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keysOn returns two keys on different shards of d.
func (d *deployment) keysOn() (a, b string) {
	a = "a"
	for i := 0; ; i++ {
		b = fmt.Sprintf("b%d", i)
		if shardtxn.ShardOf(a, d.d.Shards) != shardtxn.ShardOf(b, d.d.Shards) {
			return a, b
		}
	}
}

// prepared returns how many transactions shard s's leader holds prepared,
// or -1 with no leader.
func (d *deployment) prepared(s int) int {
	i, ok := d.c.Leader(1 + s)
	if !ok {
		return -1
	}
	_, p := d.c.Replica(1+s, i).(*shardtxn.ShardServer).Locks()
	return p
}

// coordLeader returns the coordinator group's leader, if any.
func (d *deployment) coordLeader() (*shardtxn.CoordServer, int, bool) {
	i, ok := d.c.Leader(0)
	if !ok {
		return nil, 0, false
	}
	return d.c.Replica(0, i).(*shardtxn.CoordServer), d.c.HostOf(0, i), true
}

// A crashPoint is a moment of two-phase commit at which a test crashes
// the coordinator leader's host: when reached says whether the moment has
// come, for a transaction between shards sa and sb.
type crashPoint struct {
	name    string
	reached func(d *deployment, sa, sb int) bool
}

var crashPoints = []crashPoint{
	{"after prepare", func(d *deployment, sa, sb int) bool { return d.prepared(sa) == 1 && d.prepared(sb) == 1 }},
	{"after the decision is replicated, before any commit is delivered", func(d *deployment, sa, sb int) bool {
		c, _, ok := d.coordLeader()
		return ok && c.Decided() == 1 && d.prepared(sa) == 1 && d.prepared(sb) == 1
	}},
	{"between the commits to two shards", func(d *deployment, sa, sb int) bool {
		return d.prepared(sa)+d.prepared(sb) == 1
	}},
}

// A disruption is what a test does to the deployment at a crashPoint:
// it applies its faults and heals them.
type disruption struct {
	name   string
	shared bool // runs on paper 000's shared hosts; false: every replica on a host of its own
	apply  func(t simtest.T, d *deployment)
}

// killLeader kills the coordinator leader's host (with the shard
// replicas it holds) and restarts it half a second later.
var killLeader = disruption{"kill the coordinator leader's host", true, func(t simtest.T, d *deployment) {
	_, host, ok := d.coordLeader()
	require.True(t, ok)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: host}))
	d.w.Run(500 * time.Millisecond)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: host}))
}}

// cutCoordinators cuts every coordinator off from every shard for long:
// the cohorts wait that long for the decision.
func cutCoordinators(long time.Duration) disruption {
	return disruption{fmt.Sprintf("cut the coordinators off from the shards for %v", long), false, func(t simtest.T, d *deployment) {
		coords, _ := d.coordHosts()
		d.partition(t, coords, long)
	}}
}

// strandLeader cuts the coordinator leader off from its own group, not
// from the shards, for a second: it can reach the cohorts but cannot
// replicate a decision.
var strandLeader = disruption{"cut the coordinator leader off from its group", false, func(t simtest.T, d *deployment) {
	_, leader, ok := d.coordLeader()
	require.True(t, ok)
	coords, _ := d.coordHosts()
	var others []int
	for _, h := range coords {
		if h != leader {
			others = append(others, h)
		}
	}
	d.partition(t, others, time.Second)
}}

// strandWithShards cuts the coordinators but the leader off from
// everything else, the leader and the shards included, for longer than
// the transaction timeout: the leader can gather votes but not replicate a
// decision, and the leader the others elect cannot reach the shards, so it
// aborts the transaction when it times out.
var strandWithShards = disruption{"cut the other coordinators off from the leader and the shards past the timeout", false, func(t simtest.T, d *deployment) {
	_, leader, ok := d.coordLeader()
	require.True(t, ok)
	coords, _ := d.coordHosts()
	others := slices.DeleteFunc(coords, func(h int) bool { return h == leader })
	d.partition(t, others, shardtxn.DefaultConfig().TxnTimeout+time.Second)
}}

// cutAndKill cuts the coordinators off from the shards, kills the
// coordinator leader while they are cut off, and heals: a decision the
// leader had not delivered is delivered by the next leader (presumed
// abort) or found by the cohorts' background cleanup (presumed commit,
// whose next leader does not know of a commit).
var cutAndKill = disruption{"cut the coordinators off from the shards and kill the leader", false, func(t simtest.T, d *deployment) {
	_, leader, ok := d.coordLeader()
	require.True(t, ok)
	coords, _ := d.coordHosts()
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{coords, d.others(coords)}}))
	d.w.Run(100 * time.Millisecond)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: leader}))
	d.w.Run(500 * time.Millisecond)
	require.NoError(t, d.c.Recover())
}}

// others returns the hosts not in side.
func (d *deployment) others(side []int) []int {
	var rest []int
	for h := range d.c.Hosts() {
		if !slices.Contains(side, h) {
			rest = append(rest, h)
		}
	}
	return rest
}

// coordHosts returns the hosts of the coordinators and of the shards.
func (d *deployment) coordHosts() (coords, shards []int) {
	for g := range 1 + d.d.Shards {
		for i := range d.c.Replicas(g) {
			if g == 0 {
				coords = append(coords, d.c.HostOf(g, i))
			} else {
				shards = append(shards, d.c.HostOf(g, i))
			}
		}
	}
	return coords, shards
}

// partition cuts the hosts in side off from all others for long, then
// heals.
func (d *deployment) partition(t simtest.T, side []int, long time.Duration) {
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{side, d.others(side)}}))
	d.w.Run(long)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Heal}))
}

// TestCoordinatorCrashMid2PC moves 50 from one key to another on another
// shard in one transaction, and kills the host of the coordinator leader
// (with the shard replicas it holds) at each moment of two-phase commit;
// then it strands the leader away from its group after prepare, and cuts
// the coordinators off from the shards for longer than the transaction
// timeout. Each time the client learns the decision, both keys agree with
// it, and every lock is released. Paper 000's design runs on two seeds,
// the other variants on one.
func TestCoordinatorCrashMid2PC(t *testing.T) {
	t.Parallel()
	type run struct {
		p crashPoint
		f disruption
	}
	runs := []run{{crashPoints[0], strandLeader}, {crashPoints[0], strandWithShards}, {crashPoints[1], cutCoordinators(shardtxn.DefaultConfig().TxnTimeout + time.Second)}, {crashPoints[1], cutAndKill}}
	for _, p := range crashPoints {
		runs = append(runs, run{p, killLeader})
	}
	for i, v := range txntest.Variants() {
		cfg := config(v)
		seeds := []int64{1, 2}
		if i > 0 {
			seeds = seeds[:1]
		}
		for _, r := range runs {
			t.Run(v.String()+"/"+r.f.name+" "+r.p.name, func(t *testing.T) {
				simtest.Run(t, seeds, func(t *testing.T, seed int64) simtest.Result {
					return result(t, crashMid2PC(t, seed, cfg, r.p, r.f))
				})
			})
		}
	}
}

// read reads keys in one transaction until it commits: under
// PresumedCommit the client hears a commit before the cohorts have it
// (and the table, which forgets it at once, does not hold up the drain),
// so a read right after a crash may meet its locks until the shards'
// background cleanup resolves them.
func (d *deployment) read(t simtest.T, ck *shardtxn.Clerk, keys ...string) shardtxn.Outcome {
	t.Helper()
	ops := make([]shardtxn.Op, len(keys))
	for i, k := range keys {
		ops[i] = shardtxn.Get(k)
	}
	var out shardtxn.Outcome
	for end := d.w.Now() + 10*time.Second; !out.Committed && d.w.Now() < end; {
		out = d.run(t, ck, ops...)
	}
	require.True(t, out.Committed, "reading %v: %s", keys, out.Reason)
	return out
}

// crashMid2PC runs the transfer, disrupting the deployment at p.
func crashMid2PC(t simtest.T, seed int64, cfg shardtxn.Config, p crashPoint, f disruption) *deployment {
	dep := standard(cfg)
	dep.Shared = f.shared
	d := deploy(t, seed, dep)
	a, b := d.keysOn()
	sa, sb := shardtxn.ShardOf(a, 3), shardtxn.ShardOf(b, 3)
	ck := txntest.Clerk(d.c, "client")
	require.True(t, d.run(t, ck, shardtxn.Set(a, "100"), shardtxn.Set(b, "0")).Committed)
	require.True(t, d.w.RunUntil(d.drained, time.Second), "the setup's commits are delivered")

	var out *shardtxn.Outcome
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "50"), shardtxn.Set(b, "50")}, func(o shardtxn.Outcome) { out = &o }))
	require.True(t, d.w.RunUntil(func() bool { return p.reached(d, sa, sb) }, 5*time.Second), "reached %s", p.name)
	f.apply(t, d)
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, 30*time.Second), "the client learns the decision")
	require.True(t, d.w.RunUntil(d.drained, 30*time.Second), "locks and the table drain")
	got := d.read(t, ck, a, b)

	want := []string{"100", "0"}
	if out.Committed {
		want = []string{"50", "50"}
	}
	assert.Equal(t, want, []string{got.Results[0].Value, got.Results[1].Value}, "both shards agree with the decision (committed %v)", out.Committed)
	return d
}

// TestAbortWithCohortDown aborts a transaction whose one cohort prepared
// and went down, and kills the coordinator leader once the client heard
// the abort: the new leader (or, under paper 003's options, the cohort's
// background cleanup) must still deliver the abort. Under PresumedCommit
// this needs the abort's entry to stay in the table until every cohort
// has it, or the cohort's question would be answered "committed".
func TestAbortWithCohortDown(t *testing.T) {
	t.Parallel()
	for _, v := range txntest.Variants() {
		t.Run(v.String(), func(t *testing.T) {
			simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
				return result(t, abortWithCohortDown(t, seed, config(v)))
			})
		})
	}
}

// abortWithCohortDown sets a key and conditionally sets one on another
// shard, on a condition that fails: the first shard prepares, and all its
// replicas are killed; the second votes no; once the client hears the
// abort, the coordinator leader's host is killed too; then everything
// restarts. The first key must keep its value.
func abortWithCohortDown(t simtest.T, seed int64, cfg shardtxn.Config) *deployment {
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, seed, dep)
	a, b := d.keysOn()
	sa := shardtxn.ShardOf(a, 3)
	ck := txntest.Clerk(d.c, "client")
	require.True(t, d.run(t, ck, shardtxn.Set(a, "100"), shardtxn.Set(b, "0")).Committed)
	require.True(t, d.w.RunUntil(d.drained, time.Second), "the setup's commits are delivered")

	var out *shardtxn.Outcome
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "50"), shardtxn.CSet(b, "50", "nothing")}, func(o shardtxn.Outcome) { out = &o }))
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 1 }, 5*time.Second), "the first shard prepares")
	for i := range d.c.Replicas(1 + sa) {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(1+sa, i)}))
	}
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, 5*time.Second), "the client hears the decision")
	require.False(t, out.Committed, "the condition fails")
	_, host, ok := d.coordLeader()
	require.True(t, ok)
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: host}))
	d.w.Run(500 * time.Millisecond)
	require.NoError(t, d.c.Recover())
	require.True(t, d.w.RunUntil(d.drained, 30*time.Second), "locks and the table drain")
	got := d.read(t, ck, a, b)
	assert.Equal(t, []string{"100", "0"}, []string{got.Results[0].Value, got.Results[1].Value}, "the abort leaves both keys as they were")
	return d
}

// TestIntentGivesUpWithoutCoordinator has a write on one shard meet the
// write intent of a transaction whose other shard is down (so it stays
// prepared) while the coordinators are cut off from the shards: under WriteIntents the shard cannot learn how the
// holder stands, and the write is refused within RPCTimeout instead of
// waiting for the coordinators.
func TestIntentGivesUpWithoutCoordinator(t *testing.T) {
	t.Parallel()
	cfg := config(txntest.Variants()[1])
	dep := standard(cfg)
	dep.Shared = false
	d := deploy(t, 1, dep)
	a, b := d.keysOn()
	sa, sb := shardtxn.ShardOf(a, 3), shardtxn.ShardOf(b, 3)
	ck := txntest.Clerk(d.c, "client")
	require.True(t, d.run(t, ck, shardtxn.Set(a, "1"), shardtxn.Set(b, "1")).Committed)
	require.True(t, d.w.RunUntil(d.drained, time.Second), "the setup's commits are delivered")
	for i := range d.c.Replicas(1 + sb) {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: d.c.HostOf(1+sb, i)}))
	}
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(a, "2"), shardtxn.Set(b, "2")}, func(shardtxn.Outcome) {}))
	require.True(t, d.w.RunUntil(func() bool { return d.prepared(sa) == 1 }, 5*time.Second), "the live shard prepares")
	coords, _ := d.coordHosts()
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Partition, Groups: [][]int{coords, d.others(coords)}}))
	start := d.w.Now()
	var out *shardtxn.Outcome
	require.NoError(t, txntest.Clerk(d.c, "writer").Txn([]shardtxn.Op{shardtxn.Set(a, "3")}, func(o shardtxn.Outcome) { out = &o }))
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, 3*time.Second), "the write is answered while the coordinators are cut off")
	assert.False(t, out.Committed, "refused: %s", out.Reason)
	assert.Less(t, d.w.Now()-start, 2*cfg.RPCTimeout, "within about RPCTimeout")
}
