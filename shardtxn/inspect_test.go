package shardtxn_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

// states returns what each shared host shows, by host.
func (d *deployment) states() []map[string]string {
	var out []map[string]string
	for _, h := range d.c.Hosts() {
		out = append(out, simtest.State(h))
	}
	return out
}

func TestInspectShowsLocksAndDecisionsPerGroup(t *testing.T) {
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	ck := txntest.Clerk(d.c, "client")
	require.True(t, d.run(t, ck, shardtxn.Set("a", "0")).Committed)

	// Each shared host shows every group's nodes apart, and each group
	// has one leader.
	groups := []string{shardtxn.CoordGroup}
	for s := range 3 {
		groups = append(groups, shardtxn.ShardGroup(s))
	}
	d.w.Run(time.Second)
	for _, g := range groups {
		leaders := 0
		for i, s := range d.states() {
			require.Contains(t, s, g+"/raft.role", "host %d", i)
			require.Contains(t, s, g+"/rsm.applied", "host %d", i)
			if s[g+"/raft.role"] == "leader" {
				leaders++
			}
		}
		assert.Equal(t, 1, leaders, "group %s", g)
	}

	// Mid-transaction, a shard shows the writer's lock and its prepare.
	var out *shardtxn.Outcome
	require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set("x", "1"), shardtxn.Set("y", "2"), shardtxn.Set("z", "3")}, func(o shardtxn.Outcome) { out = &o }))
	var seen string
	require.True(t, d.w.RunUntil(func() bool {
		for _, s := range d.states() {
			for _, g := range groups[1:] {
				if s[g+"/txn.prepared"] == "1" {
					seen = s[g+"/txn.held"]
					return true
				}
			}
		}
		return false
	}, 10*time.Second), "no shard showed a prepared transaction")
	assert.Regexp(t, `^[xyz]:w\d+\.\d+( [xyz]:w\d+\.\d+)*$`, seen, "the locks a prepared transaction holds")
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, 30*time.Second))
	require.True(t, out.Committed, out.Reason)
	require.True(t, d.w.RunUntil(d.drained, 10*time.Second))
	d.w.Run(time.Second)
	for i, s := range d.states() {
		for _, g := range groups[1:] {
			assert.Equal(t, "0", s[g+"/txn.locks"], "host %d, %s", i, g)
			assert.Equal(t, "-", s[g+"/txn.held"], "host %d, %s", i, g)
			assert.Equal(t, "0", s[g+"/txn.prepared"], "host %d, %s", i, g)
		}
		assert.Equal(t, "0", s["coord/txn.preparing"], "host %d", i)
		assert.Equal(t, "0", s["coord/txn.decided"], "host %d: every decision finished", i)
	}
}

func TestInspectChangesNothing(t *testing.T) {
	require.NoError(t, simtest.InspectingChangesNothing(func(run func(*sim.World, time.Duration)) *sim.World {
		d := deploy(t, 2, standard(shardtxn.DefaultConfig()))
		ck := txntest.Clerk(d.c, "client")
		ends := 0
		for i := range 4 {
			require.NoError(t, ck.Txn([]shardtxn.Op{shardtxn.Set(fmt.Sprintf("k%d", i), "1"), shardtxn.Set(fmt.Sprintf("j%d", i), "2")}, func(shardtxn.Outcome) { ends++ }))
			run(d.w, time.Second)
		}
		require.Equal(t, 4, ends)
		return d.w
	}))
}
