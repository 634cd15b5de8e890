package frangipani

import (
	"bytes"
	"cmp"
	"encoding/gob"
	"fmt"
	"maps"
	"slices"

	"github.com/replab/replab/rsm"
)

// A command is what a lock server puts in the Raft log: one of its
// fields is set.
type command struct {
	Acquire *AcquireArgs
	Renew   *RenewArgs
	Release *ReleaseArgs
	Expire  *expireCmd
}

// expireCmd takes a lock from a holder whose lease ran out (a shared
// lock) or who stayed silent for BreakAfter (an exclusive one), as a
// leader saw it: the holding and how many renewals it had. A renewal
// applied since makes it do nothing.
type expireCmd struct {
	Key      string
	Grant    int64
	Renewals int64
}

// A result is what a command returns.
type result struct {
	Err     Err
	Queued  bool // an acquire that waits for the lock
	Grant   int64
	Value   string
	Version int64
	Status  []Status
	Reason  string
}

// A holder holds a key's lock: Renewals counts the renewals applied,
// and First is the sequence number of the renewal request that renewed
// it first (0: none has).
type holder struct {
	Client   int64
	Mode     Mode
	Grant    int64
	Renewals int64
	First    int64
}

// A waiter waits for a key's lock, in the order of arrival, with the
// operation it may have the lock service perform instead.
type waiter struct {
	Client int64
	Mode   Mode
	Op     *Op
}

// A lock is one key's value as last flushed, its holders and waiters,
// and the client that last held it or had an operation performed on it.
type lock struct {
	Key     string
	Value   string
	Version int64
	Holders []holder
	Waiters []waiter
	Last    int64
}

type clientKey struct {
	Client int64
	Key    string
}

func compareClientKeys(a, b clientKey) int {
	return cmp.Or(cmp.Compare(a.Client, b.Client), cmp.Compare(a.Key, b.Key))
}

// A table is the lock service's state (an rsm.StateMachine): every key's
// lock and value, and the latest acquire of each client for each key.
type table struct {
	locks    map[string]*lock
	grants   int64                 // the last grant's number
	acquired map[clientKey]request // the newest acquire applied, per client and key
	// order is acquired's keys sorted by compareClientKeys, kept for
	// snapshots, which would otherwise sort them each time (most of a
	// long swarm-locks seed's CPU); nil once a key has been added.
	order    []clientKey
	maxValue int // Config.MaxValue
	bugs     bugs
	snaps    rsm.GobSnapshots[snapshotState]
	// holders and waiters count the holdings and the waiting acquires of
	// every lock, for Inspect.
	holders, waiters int

	// granted, performed, renewed, gone and queued tell the server of
	// changes as they apply, on every replica.
	granted   func(l *lock, h holder)
	performed func(l *lock, client int64, r result)
	queued    func(l *lock)
	renewed   func(grant int64)
	gone      func(grant int64)
}

// A request is a client's newest acquire of a key: its sequence number,
// and whether the lock service performed its operation.
type request struct {
	Seq       int64
	Performed bool
}

func newTable(cfg Config) *table {
	return &table{locks: map[string]*lock{}, acquired: map[clientKey]request{}, maxValue: cfg.MaxValue, bugs: cfg.bugs, snaps: rsm.NewGobSnapshots[snapshotState](),
		granted: func(*lock, holder) {}, performed: func(*lock, int64, result) {}, queued: func(*lock) {}, renewed: func(int64) {}, gone: func(int64) {}}
}

// Apply executes a command.
func (t *table) Apply(c any) any {
	cmd := c.(command)
	switch {
	case cmd.Acquire != nil:
		return t.acquire(cmd.Acquire)
	case cmd.Renew != nil:
		return t.renew(cmd.Renew)
	case cmd.Release != nil:
		return t.release(cmd.Release)
	default:
		t.expire(cmd.Expire)
		return result{Err: OK}
	}
}

func (t *table) lock(key string) *lock {
	l, ok := t.locks[key]
	if !ok {
		l = &lock{Key: key}
		t.locks[key] = l
	}
	return l
}

func (l *lock) holder(client, grant int64) int {
	return slices.IndexFunc(l.Holders, func(h holder) bool { return h.Client == client && (grant == 0 || h.Grant == grant) })
}

// grantable reports whether a lock in mode could be held beside the
// current holders.
func (l *lock) grantable(m Mode) bool {
	return len(l.Holders) == 0 || (m == Shared && l.Holders[0].Mode == Shared)
}

func (t *table) acquire(a *AcquireArgs) result {
	l := t.lock(a.Key)
	ck := clientKey{a.Client, a.Key}
	last := t.acquired[ck]
	if i := l.holder(a.Client, 0); i >= 0 {
		h := l.Holders[i]
		switch {
		case a.Seq < last.Seq:
			return result{Err: ErrStale}
		case h.Mode < a.Mode:
			return result{Err: ErrBadRequest, Reason: fmt.Sprintf("client %d holds %q shared: release it before asking for it exclusive", a.Client, a.Key)}
		}
		return granted(l, h)
	}
	if slices.ContainsFunc(l.Waiters, func(w waiter) bool { return w.Client == a.Client }) && a.Seq >= last.Seq {
		return result{Err: OK, Queued: true}
	}
	switch {
	case a.Seq == last.Seq && last.Performed:
		return outcome(l, a.Op) // a repeat of a request performed: answered, not performed again
	case a.Seq <= last.Seq:
		return result{Err: ErrStale}
	}
	if _, had := t.acquired[ck]; !had {
		t.order = nil
	}
	t.acquired[ck] = request{Seq: a.Seq}
	w := waiter{a.Client, a.Mode, a.Op}
	if len(l.Waiters) == 0 && l.grantable(a.Mode) {
		return t.admit(l, w)
	}
	l.Waiters = append(l.Waiters, w)
	t.waiters++
	t.queued(l)
	return result{Err: OK, Queued: true}
}

// admit grants w the lock, or performs its operation: when the key's
// last user was another client, caching it would only move the value
// from one client's cache to the next, a flush and a fetch through the
// log for each operation, where performing it takes one entry. An append
// that would make the value longer than MaxValue is not performed: the
// lock is granted, and the clerk refuses the append with the value in
// hand, as it does one it serves from its cache.
func (t *table) admit(l *lock, w waiter) result {
	if w.Op == nil || l.Last == 0 || l.Last == w.Client || w.Op.overflows(l.Value, t.maxValue) {
		return granted(l, t.grant(l, w))
	}
	l.Last = w.Client
	l.Value, l.Version = w.Op.do(l.Value, l.Version)
	ck := clientKey{w.Client, l.Key}
	t.acquired[ck] = request{Seq: t.acquired[ck].Seq, Performed: true}
	return outcome(l, w.Op)
}

// outcome is the answer to an acquire whose operation o the lock service
// performed: the key's version, and its value for a Get. A repeat of the
// acquire (a client's retry, or the network's duplicate) gets it too,
// without the operation performed again or the lock granted: a write is
// done once; a read reads again, between the first answer and this one,
// both while the client waits for either, and leaves no holder behind
// that the client would never learn of.
func outcome(l *lock, o *Op) result {
	r := result{Err: OK, Version: l.Version}
	if o != nil && o.Kind == OpGet {
		r.Value = l.Value
	}
	return r
}

func granted(l *lock, h holder) result {
	return result{Err: OK, Grant: h.Grant, Value: l.Value, Version: l.Version}
}

func (t *table) grant(l *lock, w waiter) holder {
	t.grants++
	h := holder{Client: w.Client, Mode: w.Mode, Grant: t.grants}
	l.Holders = append(l.Holders, h)
	t.holders++
	l.Last = w.Client
	t.granted(l, h)
	return h
}

// drop takes holding i from l and admits the waiters at the head of the
// queue that can hold it now.
func (t *table) drop(l *lock, i int) {
	t.gone(l.Holders[i].Grant)
	l.Holders = slices.Delete(l.Holders, i, i+1)
	t.holders--
	for len(l.Waiters) > 0 && l.grantable(l.Waiters[0].Mode) {
		w := l.Waiters[0]
		l.Waiters = l.Waiters[1:]
		t.waiters--
		if r := t.admit(l, w); r.Grant == 0 {
			t.performed(l, w.Client, r)
		}
	}
	if len(l.Holders) == 0 && len(l.Waiters) == 0 && l.Version == 0 {
		delete(t.locks, l.Key)
	}
}

// holding returns the lock of a holding and the holder's index in it, or
// -1 if the client does not hold it.
func (t *table) holding(client int64, held Held) (*lock, int) {
	l, ok := t.locks[held.Key]
	if !ok {
		return nil, -1
	}
	return l, l.holder(client, held.Grant)
}

// renew renews each lock the client still holds, unless another client
// waits for it: that refusal is the revocation. A holding's first renewal
// request is granted all the same, each time a try of it is applied (a
// clerk's retry after a lost answer or a timeout, the network's
// duplicate): the clerk sees the answer of one try only, and a refusal of
// the second try would take the lock from a clerk that, granted it late,
// has served nothing under it yet.
func (t *table) renew(r *RenewArgs) result {
	res := result{Err: OK, Status: make([]Status, len(r.Locks))}
	for j, held := range r.Locks {
		l, i := t.holding(r.Client, held)
		switch {
		case i < 0:
			res.Status[j] = Lost
		case len(l.Waiters) > 0 && t.bugs.grantBeforeFlush:
			res.Status[j] = Revoked
			t.drop(l, i)
		case len(l.Waiters) > 0 && l.Holders[i].Renewals > 0 && (r.Seq == 0 || r.Seq != l.Holders[i].First): // a first renewal is granted: see the package doc
			res.Status[j] = Revoked
		default:
			if l.Holders[i].Renewals == 0 {
				l.Holders[i].First = r.Seq
			}
			l.Holders[i].Renewals++
			t.renewed(held.Grant)
			res.Status[j] = Renewed
		}
	}
	return res
}

// release applies the values flushed under locks the client holds and
// gives up those not kept, in one command.
func (t *table) release(r *ReleaseArgs) result {
	res := result{Err: OK, Status: make([]Status, len(r.Locks))}
	for j, f := range r.Locks {
		l, i := t.holding(r.Client, f.Held)
		if i < 0 {
			res.Status[j] = Lost
			continue
		}
		if f.Dirty && l.Holders[i].Mode == Exclusive {
			l.Value, l.Version = f.Value, f.Version
		}
		if !f.Keep {
			t.drop(l, i)
		}
		res.Status[j] = Renewed
	}
	return res
}

func (t *table) expire(e *expireCmd) {
	l, ok := t.locks[e.Key]
	if !ok {
		return
	}
	i := slices.IndexFunc(l.Holders, func(h holder) bool { return h.Grant == e.Grant && h.Renewals == e.Renewals })
	if i >= 0 {
		t.drop(l, i)
	}
}

// snapshotState is a table as a snapshot holds it: in key order, so that
// equal tables give equal bytes.
type snapshotState struct {
	Locks    []lock
	Grants   int64
	Acquired []acquiredSeq
}

type acquiredSeq struct {
	Client    int64
	Key       string
	Seq       int64
	Performed bool
}

// Snapshot encodes the table.
func (t *table) Snapshot() []byte {
	s := snapshotState{Grants: t.grants}
	for _, k := range slices.Sorted(maps.Keys(t.locks)) {
		s.Locks = append(s.Locks, *t.locks[k])
	}
	if t.order == nil {
		t.order = slices.SortedFunc(maps.Keys(t.acquired), compareClientKeys)
	}
	s.Acquired = make([]acquiredSeq, 0, len(t.order))
	for _, ck := range t.order {
		r := t.acquired[ck]
		s.Acquired = append(s.Acquired, acquiredSeq{ck.Client, ck.Key, r.Seq, r.Performed})
	}
	b, err := t.snaps.Encode(s)
	if err != nil {
		panic(fmt.Sprintf("frangipani: encoding a snapshot: %v", err)) // plain data: a bug
	}
	return b
}

// Restore replaces the table with a snapshot's.
func (t *table) Restore(snap []byte) error {
	var s snapshotState
	if len(snap) > 0 {
		if err := gob.NewDecoder(bytes.NewReader(snap)).Decode(&s); err != nil {
			return fmt.Errorf("frangipani: snapshot: %w", err)
		}
	}
	t.locks, t.grants, t.acquired, t.order = map[string]*lock{}, s.Grants, map[clientKey]request{}, nil
	t.holders, t.waiters = 0, 0
	for i := range s.Locks {
		l := &s.Locks[i]
		t.locks[l.Key] = l
		t.holders, t.waiters = t.holders+len(l.Holders), t.waiters+len(l.Waiters)
		for _, h := range l.Holders {
			t.granted(l, h)
		}
	}
	for _, a := range s.Acquired {
		t.acquired[clientKey{a.Client, a.Key}] = request{a.Seq, a.Performed}
	}
	return nil
}
