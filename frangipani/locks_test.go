package frangipani

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func acq(t *table, client, seq int64, key string, m Mode) result {
	return t.Apply(command{Acquire: &AcquireArgs{Client: client, Seq: seq, Key: key, Mode: m}}).(result)
}

func statuses(r any) []Status { return r.(result).Status }

// assertCounted checks the table's counts of holders and waiters (for
// Inspect) against its locks.
func assertCounted(t *testing.T, tb *table, msg string) {
	t.Helper()
	holders, waiters := 0, 0
	for _, l := range tb.locks {
		holders, waiters = holders+len(l.Holders), waiters+len(l.Waiters)
	}
	assert.Equal(t, []int{holders, waiters}, []int{tb.holders, tb.waiters}, "holders and waiters counted: %s", msg)
}

// TestTableAcquire walks the lock table through grants, queues, retries
// and stale acquires.
func TestTableAcquire(t *testing.T) {
	t.Parallel()
	tb := newTable(DefaultConfig())
	var queued []string
	tb.queued = func(l *lock) { queued = append(queued, l.Key) }
	assert.Equal(t, result{Err: OK, Grant: 1}, acq(tb, 1, 1, "k", Shared))
	assert.Equal(t, result{Err: OK, Grant: 2}, acq(tb, 2, 1, "k", Shared), "shared beside shared")
	assert.Equal(t, result{Err: OK, Grant: 1}, acq(tb, 1, 1, "k", Shared), "a retry is answered with the holding")
	assert.Equal(t, result{Err: ErrStale}, acq(tb, 1, 0, "k", Shared), "an older acquire is stale")
	assert.Equal(t, result{Err: OK, Queued: true}, acq(tb, 3, 1, "k", Exclusive))
	assert.Equal(t, []string{"k"}, queued)
	assert.Equal(t, result{Err: OK, Queued: true}, acq(tb, 3, 1, "k", Exclusive), "a retry of a queued acquire stays queued")
	assert.Equal(t, result{Err: OK, Queued: true}, acq(tb, 4, 1, "k", Shared), "shared waits behind a waiting writer")
	assert.Equal(t, result{Err: ErrStale}, acq(tb, 3, 0, "k", Exclusive), "an older acquire of a waiter is stale")
	assert.Equal(t, 2, len(tb.locks["k"].Waiters), "nothing queued twice")
	assertCounted(t, tb, "two holders, two waiters")

	// Releasing both readers hands the lock to the writer, then the reader.
	assert.Equal(t, []Status{Renewed}, statuses(tb.Apply(command{Release: &ReleaseArgs{Client: 1, Locks: []Flush{{Held: Held{"k", 1}}}}})))
	assert.Equal(t, 1, len(tb.locks["k"].Holders))
	assert.Equal(t, []Status{Renewed}, statuses(tb.Apply(command{Release: &ReleaseArgs{Client: 2, Locks: []Flush{{Held: Held{"k", 2}}}}})))
	assert.Equal(t, []holder{{Client: 3, Mode: Exclusive, Grant: 3}}, tb.locks["k"].Holders)
	assert.Equal(t, []waiter{{Client: 4, Mode: Shared}}, tb.locks["k"].Waiters)
	assertCounted(t, tb, "the writer holds, the reader waits")

	// The writer flushes, keeps, then releases: the reader gets its value.
	r := tb.Apply(command{Release: &ReleaseArgs{Client: 3, Locks: []Flush{{Held: Held{"k", 3}, Dirty: true, Value: "v", Version: 7, Keep: true}}}})
	assert.Equal(t, []Status{Renewed}, statuses(r))
	assert.Equal(t, "v", tb.locks["k"].Value)
	assert.Equal(t, 1, len(tb.locks["k"].Holders), "a flush keeps the lock")
	tb.Apply(command{Release: &ReleaseArgs{Client: 3, Locks: []Flush{{Held: Held{"k", 3}}}}})
	assert.Equal(t, result{Err: OK, Grant: 4, Value: "v", Version: 7}, acq(tb, 4, 1, "k", Shared), "the reader holds it, with the writer's value")
	assert.Equal(t, result{Err: ErrStale}, acq(tb, 3, 1, "k", Exclusive), "the writer's old acquire, retried after its release, is stale")
	assert.Equal(t, ErrBadRequest, acq(tb, 4, 2, "k", Exclusive).Err, "no upgrade in place")
}

// TestTableRenewAndExpire shows a renewal refused while another client
// waits, and an expiry that a renewal since makes do nothing.
func TestTableRenewAndExpire(t *testing.T) {
	t.Parallel()
	tb := newTable(DefaultConfig())
	var renewed, gone []int64
	tb.renewed = func(g int64) { renewed = append(renewed, g) }
	tb.gone = func(g int64) { gone = append(gone, g) }
	acq(tb, 1, 1, "k", Exclusive)
	renew := func(client int64, locks ...Held) []Status {
		return statuses(tb.Apply(command{Renew: &RenewArgs{Client: client, Locks: locks}}))
	}
	assert.Equal(t, []Status{Renewed, Lost, Lost}, renew(1, Held{"k", 1}, Held{"k", 2}, Held{"none", 1}))
	assert.Equal(t, []int64{1}, renewed)
	assert.Equal(t, []Status{Lost}, renew(2, Held{"k", 1}), "another client's grant")
	tb.Apply(command{Expire: &expireCmd{Key: "k", Grant: 1, Renewals: 0}})
	assert.Empty(t, gone, "a renewal since the leader looked makes the expiry do nothing")
	acq(tb, 2, 1, "k", Shared)
	assert.Equal(t, []Status{Revoked}, renew(1, Held{"k", 1}), "refused while client 2 waits")
	assert.Equal(t, int64(1), tb.locks["k"].Holders[0].Renewals, "a refusal is no renewal")
	tb.Apply(command{Expire: &expireCmd{Key: "none", Grant: 1}})
	tb.Apply(command{Expire: &expireCmd{Key: "k", Grant: 1, Renewals: 1}})
	assert.Equal(t, []int64{1}, gone)
	assert.Equal(t, int64(2), tb.locks["k"].Holders[0].Client, "the waiter holds it")
	assert.Equal(t, []Status{Lost}, statuses(tb.Apply(command{Release: &ReleaseArgs{Client: 1, Locks: []Flush{{Held: Held{"k", 1}, Dirty: true, Value: "late"}}}})))
	assert.Equal(t, "", tb.locks["k"].Value, "a late flush under a lost grant changes nothing")
	assert.Equal(t, []Status{Renewed}, statuses(tb.Apply(command{Release: &ReleaseArgs{Client: 2, Locks: []Flush{{Held: Held{"k", 2}, Dirty: true, Value: "shared", Version: 5}}}})))
	assert.Empty(t, tb.locks, "a shared holder's value is not applied, and a lock never written, held by no one, is forgotten")
	assertCounted(t, tb, "after expiries and releases")

	cfg := DefaultConfig()
	cfg.bugs.grantBeforeFlush = true
	bug := newTable(cfg)
	acq(bug, 1, 1, "k", Exclusive)
	acq(bug, 2, 1, "k", Exclusive)
	bug.Apply(command{Renew: &RenewArgs{Client: 1, Locks: []Held{{"k", 1}}}})
	assert.Equal(t, int64(2), bug.locks["k"].Holders[0].Client, "the planted bug grants on the refusal")
}

// heldWhileOneWaits returns a table on which client 1 holds "k" exclusive
// and client 2 waits for it, and client 1's holding.
func heldWhileOneWaits() (*table, Held) {
	tb := newTable(DefaultConfig())
	acq(tb, 1, 1, "k", Exclusive)
	acq(tb, 2, 1, "k", Exclusive)
	return tb, Held{"k", tb.locks["k"].Holders[0].Grant}
}

// TestTableFirstRenewalGranted shows a holding's first renewal granted
// although another client waits (its grant may have reached the clerk
// with its lease run out), and its second refused.
func TestTableFirstRenewalGranted(t *testing.T) {
	t.Parallel()
	tb, k := heldWhileOneWaits()
	renew := func() []Status { return statuses(tb.Apply(command{Renew: &RenewArgs{Client: 1, Locks: []Held{k}}})) }
	assert.Equal(t, []Status{Renewed}, renew(), "the first, although client 2 waits")
	assert.Equal(t, []Status{Revoked}, renew(), "the second")
	assert.Equal(t, int64(1), tb.locks["k"].Holders[0].Client, "client 1 holds it until it releases")
}

// TestTableFirstRenewalGrantedOnEveryTry applies a holding's first
// renewal request twice while another client waits, as a clerk's retry
// after a lost or late answer, or the network's duplicate, has it: both
// tries are granted, since the clerk sees the answer of one of them only;
// refusing the second took the lock from a clerk granted it late before
// it served anything (swarm-locks' seed 6440, where late holders gave the
// lock up in turn, unserved, for seconds). The clerk's next renewal
// request is refused.
func TestTableFirstRenewalGrantedOnEveryTry(t *testing.T) {
	t.Parallel()
	tb, k := heldWhileOneWaits()
	renew := func(seq int64) []Status {
		return statuses(tb.Apply(command{Renew: &RenewArgs{Client: 1, Seq: seq, Locks: []Held{k}}}))
	}
	assert.Equal(t, []Status{Renewed}, renew(7), "the first request's first try, although client 2 waits")
	assert.Equal(t, []Status{Renewed}, renew(7), "its second try")
	assert.Equal(t, int64(2), tb.locks["k"].Holders[0].Renewals, "each try granted renews")
	assert.Equal(t, []Status{Revoked}, renew(8), "the next request")
	assert.Equal(t, int64(1), tb.locks["k"].Holders[0].Client, "client 1 holds it until it releases")

	snap := tb.Snapshot()
	again := newTable(DefaultConfig())
	require.NoError(t, again.Restore(snap))
	assert.Equal(t, tb.locks, again.locks, "the first renewal's request survives a snapshot")
}

// TestTableSnapshot restores a snapshot into an equal table, and refuses
// bytes that are not one.
func TestTableSnapshot(t *testing.T) {
	t.Parallel()
	tb := newTable(DefaultConfig())
	acq(tb, 1, 1, "b", Exclusive)
	acq(tb, 2, 1, "b", Shared)
	acq(tb, 2, 2, "a", Shared)
	acq(tb, 1, 3, "a", Shared)
	tb.Apply(command{Release: &ReleaseArgs{Client: 1, Locks: []Flush{{Held: Held{"b", 1}, Dirty: true, Value: "x", Version: 1}}}})
	assert.Equal(t, result{Err: OK, Value: "x", Version: 1}, acqOp(tb, 3, 1, "b", Op{Kind: OpGet}), "performed")
	acqOp(tb, 4, 1, "b", Op{Kind: OpPut, Value: "y"})
	snap := tb.Snapshot()
	again := newTable(DefaultConfig())
	var granted []int64
	again.granted = func(_ *lock, h holder) { granted = append(granted, h.Grant) }
	require.NoError(t, again.Restore(snap))
	assertCounted(t, tb, "the table snapshotted")
	assertCounted(t, again, "the table restored")
	assert.Equal(t, []int{3, 1}, []int{again.holders, again.waiters}, "two readers of a, one of b; a writer waits for b")
	assert.Equal(t, tb.acquired, again.acquired)
	assert.Equal(t, tb.grants, again.grants)
	assert.Equal(t, []holder{{Client: 2, Mode: Shared, Grant: 4}}, again.locks["b"].Holders)
	assert.Equal(t, []waiter{{Client: 4, Mode: Exclusive, Op: &Op{Kind: OpPut, Value: "y"}}}, again.locks["b"].Waiters)
	assert.Equal(t, int64(3), again.locks["b"].Last)
	assert.Equal(t, request{Seq: 1, Performed: true}, again.acquired[clientKey{3, "b"}])
	assert.Equal(t, "x", again.locks["b"].Value)
	assert.Equal(t, []int64{2, 3, 4}, granted, "the server hears of every holding restored, in key order")
	assert.Equal(t, snap, again.Snapshot(), "equal tables give equal bytes")
	acq(tb, 5, 1, "c", Shared)
	later := newTable(DefaultConfig())
	require.NoError(t, later.Restore(tb.Snapshot()))
	assert.Equal(t, tb.acquired, later.acquired, "a snapshot after another holds the acquires applied between them")
	require.NoError(t, again.Restore(nil))
	assert.Empty(t, again.locks)
	assertCounted(t, again, "the empty table restored")
	assert.ErrorContains(t, again.Restore([]byte("junk")), "frangipani: snapshot:")
}

func acqOp(t *table, client, seq int64, key string, op Op) result {
	return t.Apply(command{Acquire: &AcquireArgs{Client: client, Seq: seq, Key: key, Mode: op.Mode(), Op: &op}}).(result)
}

// TestTablePerforms shows the lock service perform an operation instead
// of granting its lock when the key's last user was another client, at
// once or when the lock frees up, and answer a retry of a performed write
// without performing it again.
func TestTablePerforms(t *testing.T) {
	t.Parallel()
	tb := newTable(DefaultConfig())
	type done struct {
		client int64
		r      result
	}
	var performed []done
	tb.performed = func(_ *lock, c int64, r result) { performed = append(performed, done{c, r}) }
	put, get := Op{Kind: OpPut, Value: "a"}, Op{Kind: OpGet}
	assert.Equal(t, result{Err: OK, Grant: 1}, acqOp(tb, 1, 1, "k", put), "a key nobody used: the lock, for the client to perform its put")
	assert.Equal(t, result{Err: OK, Queued: true}, acqOp(tb, 2, 1, "k", Op{Kind: OpAppend, Value: "b"}))
	assert.Equal(t, result{Err: OK, Queued: true}, acqOp(tb, 3, 1, "k", get))
	tb.Apply(command{Release: &ReleaseArgs{Client: 1, Locks: []Flush{{Held: Held{"k", 1}, Dirty: true, Value: "a", Version: 1}}}})
	assert.Equal(t, []done{{2, result{Err: OK, Version: 2}}, {3, result{Err: OK, Value: "ab", Version: 2}}}, performed,
		"the release lets the queue through, each operation performed in turn")
	assert.Empty(t, tb.locks["k"].Holders)
	assert.Equal(t, int64(3), tb.locks["k"].Last)

	assert.Equal(t, result{Err: OK, Version: 2}, acqOp(tb, 2, 1, "k", Op{Kind: OpAppend, Value: "b"}), "a retry of a performed write")
	assert.Equal(t, "ab", tb.locks["k"].Value, "is not performed again")
	assert.Equal(t, result{Err: ErrStale}, acqOp(tb, 2, 0, "k", get))
	assert.Equal(t, result{Err: OK, Version: 2}, tb.Apply(command{Acquire: &AcquireArgs{Client: 2, Seq: 1, Key: "k", Mode: Exclusive}}).(result), "a retry without its operation is answered alike")
	assert.Equal(t, result{Err: OK, Value: "ab", Version: 2}, acqOp(tb, 1, 2, "k", get), "a free key another client used last: performed at once")
	assert.Equal(t, result{Err: OK, Grant: 2, Value: "ab", Version: 2}, acqOp(tb, 1, 3, "k", get), "the same client again: the lock")
	assert.Equal(t, result{Err: OK, Value: "ab", Version: 2}, acqOp(tb, 3, 1, "k", get), "a retry of a performed get reads again, beside the shared holder")
	assert.Equal(t, result{Err: OK, Value: "ab", Version: 2}, acqOp(tb, 3, 1, "k", get), "and again: a repeat is never granted the lock")
	assert.Equal(t, []holder{{Client: 1, Mode: Shared, Grant: 2}}, tb.locks["k"].Holders)

	assert.Equal(t, result{Err: OK, Grant: 3, Value: "ab", Version: 2}, acq(tb, 2, 2, "k", Shared), "an acquire with no operation: the lock, whoever used the key last")
}

// TestTableRepeatedReadLeavesNoHolder delivers a performed read's acquire
// twice, as the network may, when the key's last user was another client:
// the repeat is answered with the value and grants nothing; before, it
// was admitted afresh, the client now being the key's last user, and got
// a shared lock its clerk never learned of, which kept writers out until
// its lease ran out and made the clerk's next write of the key a bad
// request.
func TestTableRepeatedReadLeavesNoHolder(t *testing.T) {
	t.Parallel()
	tb := newTable(DefaultConfig())
	acqOp(tb, 1, 1, "k", Op{Kind: OpPut, Value: "a"})
	tb.Apply(command{Release: &ReleaseArgs{Client: 1, Locks: []Flush{{Held: Held{"k", 1}, Dirty: true, Value: "a", Version: 1}}}})
	get := Op{Kind: OpGet}
	first := acqOp(tb, 2, 1, "k", get)
	assert.Equal(t, result{Err: OK, Value: "a", Version: 1}, first, "performed")
	assert.Equal(t, first, acqOp(tb, 2, 1, "k", get), "the duplicate")
	assert.Empty(t, tb.locks["k"].Holders, "no orphan lock")
	assert.Equal(t, result{Err: OK, Version: 2}, acqOp(tb, 1, 2, "k", Op{Kind: OpPut, Value: "b"}), "a write is performed at once, behind no reader")
}

// TestWaitedFor pins which locks a watch is answered with: those another
// client waits for, of the key named only, or of any key if none is.
func TestWaitedFor(t *testing.T) {
	t.Parallel()
	waited, free := &lock{Key: "k", Waiters: []waiter{{Client: 2}}}, &lock{Key: "j"}
	other := &lock{Key: "j", Waiters: []waiter{{Client: 2}}}
	assert.True(t, waitedFor("k")(waited, holder{}))
	assert.False(t, waitedFor("k")(other, holder{}), "another key")
	assert.False(t, waitedFor("j")(free, holder{}), "nobody waits")
	assert.True(t, waitedFor("")(other, holder{}))
	assert.False(t, waitedFor("")(free, holder{}))
}
