package logorder_test

import (
	"fmt"
	"testing"

	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A transaction reads its own writes, a later one that begins at the
// writer's tid sees them, and of two that read and write one key at the
// same snapshot the second to commit is ignored.
func TestReadYourWritesAndConflicts(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		d := deploy(t, seed, config(3, 1))
		a, b := d.clerk(), d.clerk()
		key := keyOn(2, d.d.Config.Layout, "x")
		tx := d.begin(t, a, 0)
		require.NoError(t, tx.Put(key, "1"))
		v, found := d.get(t, tx, key)
		assert.Equal(t, "1", v)
		assert.True(t, found)
		tid, o := d.commit(t, tx)
		assert.Equal(t, logorder.Applied, o)
		assert.Equal(t, tid, a.LastTid())

		t1, t2 := d.begin(t, a, a.LastTid()), d.begin(t, b, a.LastTid())
		for _, x := range []*logorder.Tx{t1, t2} {
			v, _ := d.get(t, x, key)
			assert.Equal(t, "1", v, "a snapshot at the writer's tid sees the write")
			require.NoError(t, x.Put(key, v+"+"))
		}
		_, o1 := d.commit(t, t1)
		_, o2 := d.commit(t, t2)
		assert.Equal(t, logorder.Applied, o1)
		assert.Equal(t, logorder.ConflictIgnored, o2, "the value it read changed after its snapshot")
		v, _ = d.get(t, d.begin(t, b, b.LastTid()), key)
		assert.Equal(t, "1+", v)
		assert.Empty(t, d.disagreement())
		for i := range 3 {
			s := d.server(i)
			assert.Zero(t, s.Pending(), "node %d: no commit waits", i)
			assert.Zero(t, s.Stats().Redecided, "node %d: each commit's outcome came from processing it", i)
		}
		return d.result()
	})
}

// Versions older than Versions tids before the newest are collected: a
// transaction whose snapshot is that old gets ErrSnapshotTooOld and
// begins again.
func TestSnapshotTooOld(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		cfg := config(1, 1)
		cfg.Versions, cfg.SnapshotEvery = 4, 1
		d := deploy(t, seed, cfg)
		ck := d.clerk()
		d.put(t, ck, "a", "0")
		old := d.begin(t, ck, ck.LastTid())
		for i := range 12 {
			d.put(t, ck, "a", fmt.Sprint(i+1))
		}
		assert.LessOrEqual(t, d.server(0).Versions(), 2*cfg.Versions+1, "old versions are collected")
		ended := false
		require.NoError(t, old.Get("a", func(_ string, _ bool, err error) {
			assert.ErrorIs(t, err, logorder.ErrSnapshotTooOld)
			ended = true
		}))
		d.runUntil(t, "a read at an old snapshot", &ended)
		v, _ := d.get(t, d.begin(t, ck, ck.LastTid()), "a")
		assert.Equal(t, "12", v)
		return d.result()
	})
}
