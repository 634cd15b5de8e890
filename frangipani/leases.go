package frangipani

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// How a clerk keeps its locks and gives them up: renewals, watches,
// releases and flushes (Sync).

// renew renews the leases of the locks the clerk holds, one renewal at a
// time (a renewal still out that does not name every lock held gives way
// to one that does), every RenewEvery. A lease runs on from when the try
// of the renewal that was answered was sent: the lock service applied
// that try no sooner, and every try it applies and grants renews the
// lease on its side from then; counted from the renewal's first try, a
// renewal that took longer than a lease to get through would give no
// lease at all. A refused renewal is a revocation, and the clerk releases
// the lock.
func (ck *Clerk) renew() {
	ck.renewal.Reset(ck.cfg.RenewEvery)
	locks := ck.held()
	if ck.cancelRenews != nil {
		if !slices.ContainsFunc(locks, func(l Held) bool { return !slices.Contains(ck.renewing, l) }) {
			return // the renewal in flight names every lock held
		}
		// A renewal whose tries go unanswered must not keep a lock taken
		// since it was sent unrenewed: the lock service would break that
		// lock after BreakAfter, its holder heard from all the while.
		ck.cancelRenews()
		ck.cancelRenews = nil
	}
	if len(locks) == 0 {
		return
	}
	ck.renewing = locks
	ck.renewals++
	args := &RenewArgs{Client: ck.id, Seq: ck.renewals, Locks: locks}
	ck.cancelRenews = ck.r.CallTimed("LockServer.Renew", args, func() any { return &RenewReply{} }, wrongLeader[*RenewReply], func(r any, sent time.Duration) {
		ck.cancelRenews = nil
		status := ck.statuses("renewal", r.(*RenewReply).Status, len(locks))
		for i, l := range locks {
			e := ck.cache[l.Key]
			if e == nil || e.grant != l.Grant || e.state != held {
				continue // released since
			}
			e.late = false
			switch status[i] {
			case Renewed:
				e.leaseEnd = max(e.leaseEnd, sent+ck.cfg.ClientLease())
			case Revoked:
				ck.wanted(l.Key)
			default:
				ck.drop(l.Key)
			}
		}
		ck.flush()
		ck.try()
	})
}

// watch keeps a watch of the clerk's locks at the lock service's leader
// while it holds any, and releases those another client waits for as soon
// as the leader says so, rather than at its next renewal.
func (ck *Clerk) watch() {
	if ck.watching {
		return
	}
	locks := ck.held()
	if len(locks) == 0 {
		return
	}
	ck.watching = true
	ck.r.Call("LockServer.Watch", &WatchArgs{Client: ck.id, Locks: locks}, func() any { return &WatchReply{} }, wrongLeader[*WatchReply], func(r any) {
		ck.watching = false
		for _, l := range r.(*WatchReply).Locks {
			if e := ck.cache[l.Key]; e != nil && e.grant == l.Grant && e.state == held {
				ck.wanted(l.Key)
			}
		}
		ck.flush()
		ck.try()
		ck.watch()
	})
}

// held returns the locks the clerk holds and serves, in key order.
func (ck *Clerk) held() []Held {
	var locks []Held
	for _, k := range slices.Sorted(maps.Keys(ck.cache)) {
		if e := ck.cache[k]; e.state == held {
			locks = append(locks, Held{Key: k, Grant: e.grant})
		}
	}
	return locks
}

// statuses returns a renewal's or release's answer for n locks, got, if
// it has a status for each; if not, the answer is unexpected, and every
// lock counts as lost: the clerk stops serving them, and a Sync reports
// the writes lost with them.
func (ck *Clerk) statuses(what string, got []Status, n int) []Status {
	if len(got) == n {
		return got
	}
	ck.unexpected("a %s of %d locks answered with %d statuses", what, n, len(got))
	lost := make([]Status, n)
	for i := range lost {
		lost[i] = Lost
	}
	return lost
}

// drop forgets a lock the clerk no longer holds, counting its unflushed
// writes as lost.
func (ck *Clerk) drop(key string) {
	if ck.cache[key].dirty {
		ck.lost++
		ck.unsynced++
	}
	delete(ck.cache, key)
}

// release stops serving key and queues its lock to be released with its
// value (flush sends the queue).
func (ck *Clerk) release(key string) {
	ck.cache[key].state = releasing
	ck.enqueue(key)
}

func (ck *Clerk) enqueue(key string) {
	if e := ck.cache[key]; !e.queued {
		e.queued = true
		ck.queue = append(ck.queue, key)
	}
}

// flush sends the queued releases and flushes, all in one request, one
// request at a time (they carry a session, for at-most-once execution);
// when none is left it answers the Syncs waiting.
func (ck *Clerk) flush() {
	if ck.flushing {
		return
	}
	if len(ck.queue) == 0 {
		ck.synced()
		return
	}
	var items []Flush
	for _, k := range ck.queue {
		e := ck.cache[k]
		if e == nil {
			continue // lost since it was queued
		}
		e.queued = false
		items = append(items, Flush{Held: Held{Key: k, Grant: e.grant}, Dirty: e.dirty && !ck.cfg.bugs.dropDirty,
			Value: e.value, Version: e.version, Keep: e.state == held})
	}
	ck.queue = nil
	ck.releases++
	ck.flushing = true
	args := &ReleaseArgs{Client: ck.id, Seq: ck.releases, Locks: items}
	ck.r.Call("LockServer.Release", args, func() any { return &ReleaseReply{} }, wrongLeader[*ReleaseReply], func(r any) {
		ck.flushing = false
		status := ck.statuses("release", r.(*ReleaseReply).Status, len(items))
		for i, f := range items {
			e := ck.cache[f.Key]
			switch {
			case e == nil || e.grant != f.Grant: // lost since
			case status[i] != Renewed:
				ck.drop(f.Key)
			case !f.Keep:
				delete(ck.cache, f.Key)
			case e.version == f.Version:
				e.dirty = false
			}
		}
		ck.flush()
		ck.try()
	})
}

// Sync flushes every write the clerk holds in its cache, keeping the
// locks, and calls done once they are applied by the lock service: from
// then on they survive this client's crash. done gets an error if writes
// were lost since the last Sync returned (a lock lost while it held
// unflushed writes: see the package doc). It returns an error, and does
// nothing, if done is nil or the clerk is dead.
func (ck *Clerk) Sync(done func(err error)) error {
	if err := ck.usable("Sync", done == nil); err != nil {
		return err
	}
	ck.syncs = append(ck.syncs, done)
	for _, k := range slices.Sorted(maps.Keys(ck.cache)) {
		if e := ck.cache[k]; e.dirty && e.state == held {
			ck.enqueue(k)
		}
	}
	ck.flush()
	return nil
}

// synced answers the waiting Syncs once the queue is empty.
func (ck *Clerk) synced() {
	if len(ck.syncs) == 0 {
		return
	}
	var err error
	if ck.unsynced > 0 {
		err = fmt.Errorf("frangipani: clerk %d lost the unflushed writes of %d locks since the last Sync", ck.id, ck.unsynced)
		ck.unsynced = 0
	}
	for _, done := range ck.syncs {
		ck.host.After(0, func() { done(err) })
	}
	ck.syncs = nil
}
