package shardtxn_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCoordinatorLeaderCrash is paper 003's coordinator-leader crash (it
// lost 30 % of its transactions) under each variant: clients run
// transactions across shards while the coordinator leader is killed twice.
// A client retries a transaction under its Txid until it learns the
// decision, so the crash costs no transaction: every one without
// contention commits, and those that fail (two clients also append to one
// hot list, at once, and lose a lock wait or meet a pending intent) leave
// no trace.
func TestCoordinatorLeaderCrash(t *testing.T) {
	t.Parallel()
	eachVariant(t, func(t *testing.T, cfg shardtxn.Config) {
		failed, total, _ := leaderCrash(t, 1, cfg)
		t.Logf("%d of %d transactions failed, each contending for the hot list, none leaving a trace", failed, total)
	})
}

// A crashTxn is one transaction of leaderCrash: it sets two fresh keys on
// two shards to val and, if hot, appends val to the hot list.
type crashTxn struct {
	keys []string
	val  string
	hot  bool
	out  *shardtxn.Outcome
	// from and to are when it began and ended, in virtual time.
	from, to time.Duration
}

// TestReplicaManagerDiscovery runs the coordinator-leader crash under
// paper 003's whole design, its leader discovery included: the clerks and
// servers find each group's leader through the replica manager (the
// cluster's directory), which the new coordinator leader tells of itself,
// and the crash again costs no transaction that did not contend.
func TestReplicaManagerDiscovery(t *testing.T) {
	t.Parallel()
	cfg := shardtxn.DefaultConfig()
	cfg.Conflicts, cfg.Presumption, cfg.Discovery = shardtxn.WriteIntents, shardtxn.PresumedCommit, shardtxn.ReplicaManager
	failed, total, d := leaderCrash(t, 1, cfg)
	asked := d.c.Net().GetCount("directory")
	assert.Greater(t, asked, 4, "the groups' leaders reported and the callers looked them up")
	t.Logf("%d of %d transactions failed; the directory answered %d calls", failed, total, asked)
}

// leaderCrash runs the scenario and returns how many transactions failed,
// of how many, and the deployment.
func leaderCrash(t simtest.T, seed int64, cfg shardtxn.Config) (failed, total int, d *deployment) {
	dep := standard(cfg)
	dep.Shared = false
	d = deploy(t, seed, dep)
	const clients, hot = 3, "hot"
	var txns []*crashTxn
	running, stop := clients, false
	for c := range clients {
		ck := txntest.Clerk(d.c, fmt.Sprintf("client%d", c))
		var next func(i int)
		next = func(i int) {
			if stop {
				running--
				return
			}
			tx := &crashTxn{keys: d.freshKeys(fmt.Sprintf("t%d.%d", c, i)), val: fmt.Sprintf("%d.%d", c, i), hot: c < 2}
			tx.from = d.w.Now()
			txns = append(txns, tx)
			ops := []shardtxn.Op{shardtxn.Set(tx.keys[0], tx.val), shardtxn.Set(tx.keys[1], tx.val)}
			if tx.hot {
				ops = append(ops, shardtxn.Append(hot, tx.val))
			}
			require.NoError(t, ck.Txn(ops, func(o shardtxn.Outcome) {
				tx.out, tx.to = &o, d.w.Now()
				think := 20 * time.Millisecond
				if tx.hot {
					think = 0 // the hot clients contend
				}
				d.w.After(think, func() { next(i + 1) })
			}))
		}
		next(0)
	}
	var kills []time.Duration
	for range 2 {
		d.w.Run(300 * time.Millisecond)
		busy := func() bool { c, _, ok := d.coordLeader(); return ok && c.Pending() > 0 }
		require.True(t, d.w.RunUntil(busy, 5*time.Second), "a coordinator leads, with a transaction under way")
		_, host, _ := d.coordLeader()
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: host}))
		kills = append(kills, d.w.Now())
		d.w.Run(500 * time.Millisecond)
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Restart, Host: host}))
	}
	stop = true
	require.True(t, d.w.RunUntil(func() bool { return running == 0 }, time.Minute), "the clients finish")
	require.True(t, d.w.RunUntil(d.drained, 30*time.Second), "locks and the table drain")

	reader := txntest.Clerk(d.c, "reader")
	list := d.read(t, reader, hot).Results[0].Value
	var keys []string
	for _, tx := range txns {
		keys = append(keys, tx.keys...)
	}
	found := map[string]shardtxn.Result{}
	for chunk := range slices.Chunk(keys, 256) {
		for i, r := range d.read(t, reader, chunk...).Results {
			found[chunk[i]] = r
		}
	}
	assert.Len(t, strings.Fields(list), len(slices.Compact(slices.Sorted(slices.Values(strings.Fields(list))))), "no append applied twice")
	hit := 0
	for _, tx := range txns {
		if slices.ContainsFunc(kills, func(k time.Duration) bool { return tx.from <= k && k < tx.to }) {
			hit++
		}
		r := []shardtxn.Result{found[tx.keys[0]], found[tx.keys[1]]}
		appended := slices.Contains(strings.Fields(list), tx.val)
		if tx.out.Committed {
			assert.Equal(t, []string{tx.val, tx.val}, []string{r[0].Value, r[1].Value}, "committed %s wrote both keys", tx.val)
			assert.Equal(t, tx.hot, appended, "committed %s appended if it was to", tx.val)
			continue
		}
		failed++
		assert.True(t, tx.hot, "%s, without contention, failed: %s", tx.val, tx.out.Reason)
		assert.False(t, r[0].Found || r[1].Found || appended, "failed %s (%s) left a trace", tx.val, tx.out.Reason)
	}
	assert.GreaterOrEqual(t, hit, len(kills), "the kills catch transactions in flight")
	return failed, len(txns), d
}

// freshKeys returns two keys named after name, on different shards.
func (d *deployment) freshKeys(name string) []string {
	a := name + "a"
	for i := 0; ; i++ {
		if b := fmt.Sprintf("%sb%d", name, i); shardtxn.ShardOf(a, d.d.Shards) != shardtxn.ShardOf(b, d.d.Shards) {
			return []string{a, b}
		}
	}
}
