package logorder_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Read-only transactions served from a snapshot, without the log, may go
// back in time: a client whose snapshot comes from a node cut off from
// the log misses a write that completed before it began. txncheck calls
// that serializable, not strictly (nor, for the writer's own read, strong
// session serializable). Beginning at the client's last tid restores
// read-your-writes.
func TestSnapshotReadsGoBackInTime(t *testing.T) {
	simtest.Run(t, simtest.Seeds(t, 1), func(t *testing.T, seed int64) simtest.Result {
		d := deploy(t, seed, config(3, 2))
		stale := 2
		key := 0
		for d.d.Config.Layout.Owners(logordertest.Key("k", key))[1] != stale {
			key++
		}
		clerk := func(name string) (*logorder.Clerk, func(to []int)) {
			h := d.c.NewClient(name)
			ck, err := logorder.MakeClerk(h, d.c.Ends(h, 0, nil), d.d.Config.Layout)
			require.NoError(t, err)
			ck.SetTimeout(100 * time.Millisecond)
			ck.SetSnapshotReads(true)
			return ck, func(to []int) { d.c.Connect(h, 0, to) }
		}
		writer, connectWriter := clerk("writer")
		reader, connectReader := clerk("reader")
		// realtime holds the reader's stale read; session, the writer's.
		var realtime, session txncheck.History
		run := func(process int, ck *logorder.Clerk, ops []txncheck.Op, min bool, into ...*txncheck.History) []int {
			client := logordertest.Client{Clerk: ck, AnySnapshot: !min}
			invoked := d.w.Now()
			var txn txncheck.Txn
			client.ListTxn(ops, func(o txncheck.Outcome, done []txncheck.Op) {
				txn = txncheck.Txn{Process: process, Invoke: invoked, Complete: d.w.Now(), Outcome: o, Ops: done}
			})
			require.True(t, d.w.RunUntil(func() bool { return txn.Outcome != txncheck.Unknown }, 30*time.Second))
			for _, h := range into {
				h.Add(txn)
			}
			return txn.Ops[0].Values
		}
		d.w.Run(time.Second)
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Isolate, Host: d.c.HostOf(0, stale)}))
		d.w.Run(time.Second)
		run(0, writer, []txncheck.Op{txncheck.Append(key, 1)}, true, &realtime, &session)
		connectReader([]int{stale})
		d.w.Run(time.Millisecond) // the reader begins after the append ended
		assert.Empty(t, run(1, reader, []txncheck.Op{txncheck.Read(key)}, true, &realtime), "the reader, begun after the append ended, misses it")
		connectWriter([]int{stale})
		assert.Empty(t, run(0, writer, []txncheck.Op{txncheck.Read(key)}, false, &session), "begun at tid 0 at the cut-off node, the writer misses its own append")
		connectWriter([]int{0, 1, 2})
		assert.Equal(t, []int{1}, run(0, writer, []txncheck.Op{txncheck.Read(key)}, true, &realtime, &session), "begun at its last tid, the writer reads its append")
		for _, h := range []*txncheck.History{&realtime, &session} {
			r, err := txncheck.Check(h, txncheck.Serializable)
			require.NoError(t, err)
			assert.True(t, r.OK(), "%v", r)
		}
		r, err := txncheck.Check(&realtime, txncheck.StrictSerializable)
		require.NoError(t, err)
		assert.Equal(t, 1, r.Count(txncheck.GSingleRealtime), "%v", r)
		r, err = txncheck.Check(&session, txncheck.StrongSessionSerializable)
		require.NoError(t, err)
		assert.Equal(t, 1, r.Count(txncheck.GSingleProcess), "%v", r)
		return d.result()
	})
}
