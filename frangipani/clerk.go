package frangipani

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A Clerk is a caching client of the service. It serves Get, Put and
// Append from its cache while it holds the key's lock (shared for a Get,
// exclusive for a write) and the lock's lease has time left on its own
// clock; it renews its leases every RenewEvery, and when another client
// waits for a lock (its watch, a grant or a refused renewal says so) it
// flushes the key's value and releases the lock in one request, once it
// is done with the key (Linger, MaxHold). An operation on a key another
// client used last the lock service may perform instead (see the package
// doc). Writes to the cache are durable only once flushed: by a release,
// or by Sync. A request a lock server does not answer within RPCTimeout
// goes to the next server, and the clerk takes the first answer that
// comes to any of its tries: a leader holds a queued acquire's answer
// until the lock is granted, and on a slow or lossy network may answer
// every try about as late as the timeout, or later. It does one
// operation at a time; everything runs inside the world, and each call's
// callback runs later, with an error if the operation failed. A clerk
// lives as long as its host's incarnation: once the host is killed, it
// refuses every call.
type Clerk struct {
	host *sim.Host
	inc  uint64 // the host's incarnation the clerk was made in
	cfg  Config
	id   int64
	r    *rsm.Router

	cache    map[string]*entry
	op       *op   // the operation in progress, or nil
	acquires int64 // the sequence number of the latest acquire
	// lastKey and lastDone are the key of the latest operation done and
	// when it was, on the clerk's clock.
	lastKey  string
	lastDone time.Duration

	renewal *sim.Timer
	// renewing is the locks a renewal in flight names, and cancel ends it
	// (nil: none is).
	renewing     []Held
	cancelRenews func()
	watching     bool // a watch is in flight

	queue    []string // keys to release, or flush and keep, in order
	flushing bool     // a release is in flight
	releases int64    // the sequence number of the latest release
	renewals int64    // the sequence number of the latest renewal
	syncs    []func(error)
	lost     int // locks held with writes not flushed when they were lost
	served   func(key string, mode Mode)
	unsynced int // of those, the ones lost since the last Sync returned
}

// An entry is a key in the cache and the lock it is held under.
type entry struct {
	state    state
	mode     Mode
	grant    int64
	value    string
	version  int64
	dirty    bool          // written since the last flush
	leaseEnd time.Duration // on the clerk's clock
	queued   bool          // in the flush queue
	// wanted is whether another client waits for the lock, and since
	// when, on the clerk's clock; used is when the clerk last served an
	// operation under it (or got it).
	wanted      bool
	wantedSince time.Duration
	used        time.Duration
	yielding    bool // a look at whether to give the lock up is due
	// late is a lock granted after its lease ran out (it waited behind
	// others longer than a lease): the clerk keeps it, and serves nothing
	// from it, until a renewal of it is answered; the lock service grants
	// a holding's first renewal even while others wait.
	late bool
}

type state int

const (
	acquiring state = iota
	held
	releasing
)

// An op is an operation in progress, when it started on the clerk's
// clock, and what to call when it is done.
type op struct {
	Op
	key     string
	started time.Duration
	done    func(value string, version int64, err error)
}

// MakeClerk returns a clerk on host talking to the lock servers, with
// the leases and timing of cfg (the servers' configuration). The host
// shows the clerk's state as "clerk" (see Inspect): one clerk's, the
// latest made there.
func MakeClerk(host *sim.Host, servers []*labrpc.ClientEnd, cfg Config) (*Clerk, error) {
	switch {
	case host == nil:
		return nil, fmt.Errorf("frangipani: MakeClerk: a nil host")
	case !host.Alive():
		return nil, fmt.Errorf("frangipani: MakeClerk: host %s is dead", host.Name())
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("frangipani: a clerk needs at least one lock server, got none")
	}
	if i := slices.Index(servers, nil); i >= 0 {
		return nil, fmt.Errorf("frangipani: MakeClerk: the end to lock server %d is nil", i)
	}
	id := 1 + host.Rand().Int64N(math.MaxInt64) // 0 is no session in rsm
	ck := &Clerk{host: host, inc: host.Incarnation(), cfg: cfg, id: id, r: rsm.MakeRouter(host, servers), cache: map[string]*entry{}}
	ck.r.SetTimeout(cfg.RPCTimeout)
	ck.r.TakeLateAnswers()
	ck.renewal = host.NewTimer(ck.renew)
	ck.renewal.Reset(cfg.RenewEvery)
	host.Inspect("clerk", ck)
	return ck, nil
}

// ID returns the clerk's client ID.
func (ck *Clerk) ID() int64 { return ck.id }

// Lost returns how many times the clerk lost a lock while it held writes
// not yet flushed: those writes are gone (see the package doc).
func (ck *Clerk) Lost() int { return ck.lost }

// Get fetches key's value and version ("" and 0 if the key was never
// written). It returns an error, and does nothing, if the key or done is
// bad or the clerk is busy or dead; done gets an error if a lock server's
// answer made no sense.
func (ck *Clerk) Get(key string, done func(value string, version int64, err error)) error {
	return ck.start("Get", key, Op{Kind: OpGet}, done == nil, done)
}

// Put sets key to value: in the cache, where the write is durable once
// flushed (Sync) and until then lost if this client crashes; or, if the
// lock service performs it (the key was another client's last), there,
// durable at once. It returns an error, and writes nothing, if the key,
// the value or done is bad or the clerk is busy or dead; done gets an
// error if a lock server's answer made no sense.
func (ck *Clerk) Put(key, value string, done func(err error)) error {
	return ck.start("Put", key, Op{Kind: OpPut, Value: value}, done == nil, func(_ string, _ int64, err error) { done(err) })
}

// Append appends value to key's value; durable as Put is, and refused as
// Put is. An append that would make the value longer than MaxValue is
// refused when the clerk has the value: done gets an error, and nothing
// is written.
func (ck *Clerk) Append(key, value string, done func(err error)) error {
	return ck.start("Append", key, Op{Kind: OpAppend, Value: value}, done == nil, func(_ string, _ int64, err error) { done(err) })
}

// start checks an operation, called what, and begins it.
func (ck *Clerk) start(what, key string, o Op, nilDone bool, done func(value string, version int64, err error)) error {
	if err := ck.usable(what, nilDone); err != nil {
		return err
	}
	value := o.Value
	switch {
	case key == "":
		return fmt.Errorf("frangipani: empty key")
	case len(key) > MaxKey:
		return fmt.Errorf("frangipani: a key of %d bytes is over the limit of %d (MaxKey)", len(key), MaxKey)
	case len(value) > ck.cfg.MaxValue:
		return fmt.Errorf("frangipani: a value of %d bytes for key %q is over the limit of %d", len(value), key, ck.cfg.MaxValue)
	case ck.op != nil:
		return fmt.Errorf("frangipani: clerk %d: an operation on %q while one on %q is in progress; a clerk does one at a time", ck.id, key, ck.op.key)
	}
	ck.op = &op{Op: o, key: key, started: ck.host.Now(), done: done}
	ck.try()
	return nil
}

// usable returns an error if the clerk cannot take a call of what: its
// host was killed since the clerk was made (the clerk died with it), or
// the call has no callback.
func (ck *Clerk) usable(what string, nilDone bool) error {
	switch {
	case ck.host.Incarnation() != ck.inc:
		return fmt.Errorf("frangipani: clerk %d: %s after its host %s was killed; make a new clerk", ck.id, what, ck.host.Name())
	case nilDone:
		return fmt.Errorf("frangipani: clerk %d: %s with a nil callback", ck.id, what)
	}
	return nil
}

// unexpected makes an error of a lock server's answer that the clerk
// cannot act on, a bug on one side or the other, and writes it in the
// run's trace.
func (ck *Clerk) unexpected(format string, args ...any) error {
	err := fmt.Errorf("frangipani: clerk %d: unexpected answer: %s", ck.id, fmt.Sprintf(format, args...))
	ck.host.World().Tracef("%v", err)
	return err
}

// try moves the operation in progress on: it serves it from the cache if
// the key's lock is held in a mode that allows it and its lease has time
// left on the clerk's clock, or asks for what it lacks.
func (ck *Clerk) try() {
	o := ck.op
	if o == nil {
		return
	}
	e := ck.cache[o.key]
	switch {
	case e == nil:
		ck.acquire(o)
	case e.state != held: // acquiring or releasing: wait for the answer
	case e.mode < o.Mode():
		ck.release(o.key) // a shared lock, given up before asking for it exclusive
		ck.flush()
	case ck.host.Now() >= e.leaseEnd && !ck.cfg.bugs.serveExpired: // wait for the renewal
	default:
		ck.serve(o, e)
	}
}

// serve performs o on its key's entry in the cache, e, and answers it
// CacheHit later; an append that would make the value longer than
// MaxValue is refused, and changes nothing.
func (ck *Clerk) serve(o *op, e *entry) {
	ck.op = nil
	e.used = ck.host.Now()
	if ck.served != nil {
		ck.served(o.key, o.Mode())
	}
	var err error
	switch {
	case o.overflows(e.value, ck.cfg.MaxValue):
		err = fmt.Errorf("frangipani: an append of %d bytes to key %q, whose value has %d, would make it longer than the limit of %d; nothing was written", len(o.Value), o.key, len(e.value), ck.cfg.MaxValue)
	case o.Kind != OpGet:
		e.value, e.version = o.do(e.value, e.version)
		e.dirty = true
	}
	value, version := e.value, e.version
	ck.lastKey, ck.lastDone = o.key, e.used+ck.cfg.CacheHit
	ck.host.After(ck.cfg.CacheHit, func() { o.done(value, version, err) })
	if e.wanted {
		ck.yield(o.key, e.grant)
	}
}

// A Holding is a lock a clerk holds and may serve from: its key, its mode,
// and when its lease ends on the clerk's clock.
type Holding struct {
	Key      string
	Mode     Mode
	LeaseEnd time.Duration
}

// Holdings returns the locks the clerk holds (granted, not being released,
// not granted after their lease ran out), in key order, with their
// leases' ends, for an observer that judges lock safety from outside (a
// search's predicates): whether a lease has ended is the observer's to
// judge, on its clock.
func (ck *Clerk) Holdings() []Holding {
	var hs []Holding
	for k, e := range ck.cache {
		if e.state == held && !e.late {
			hs = append(hs, Holding{Key: k, Mode: e.mode, LeaseEnd: e.leaseEnd})
		}
	}
	slices.SortFunc(hs, func(a, b Holding) int { return strings.Compare(a.Key, b.Key) })
	return hs
}

// OnServe makes the clerk call fn as it serves each operation from its
// cache, with the key and the mode the operation needs (Shared for a get):
// an observer judges by it whether the clerk served under a lock it held.
// A nil fn stops the calls.
func (ck *Clerk) OnServe(fn func(key string, mode Mode)) { ck.served = fn }

// wanted notes that another client waits for key's lock, which the clerk
// holds, and gives it up once the clerk has not used it for Linger, or
// has served it for MaxHold since.
func (ck *Clerk) wanted(key string) {
	e := ck.cache[key]
	if !e.wanted {
		e.wanted, e.wantedSince = true, ck.host.Now()
	}
	ck.yield(key, e.grant)
}

// yield releases key's lock, held under grant and wanted by another
// client, if its time is up; if not, it looks again when it will be.
func (ck *Clerk) yield(key string, grant int64) {
	e := ck.cache[key]
	if e == nil || e.grant != grant || e.state != held || e.late {
		return // released since, or kept until renewed
	}
	now := ck.host.Now()
	if due := min(e.used+ck.cfg.Linger, e.wantedSince+ck.cfg.MaxHold); now < due {
		if !e.yielding {
			e.yielding = true
			ck.host.After(due-now, func() { e.yielding = false; ck.yield(key, grant) })
		}
		return
	}
	ck.release(key)
	ck.flush()
}

// acquire asks for the lock o needs, with o for the lock service to
// perform instead if it so decides; but a clerk working the key back to
// back (o follows an operation on the key that was done less than Linger
// before o started) asks for the lock alone, to serve the operations to
// come from its cache. The lease runs from the moment the request is
// sent, which is before any server grants it.
func (ck *Clerk) acquire(o *op) {
	key, m := o.key, o.Mode()
	e := &entry{state: acquiring, mode: m}
	ck.cache[key] = e
	ck.acquires++
	args := &AcquireArgs{Client: ck.id, Seq: ck.acquires, Key: key, Mode: m}
	busy := ck.lastKey == key && o.started-ck.lastDone < ck.cfg.Linger
	if !ck.cfg.LocksOnly && !busy {
		args.Op = &o.Op
	}
	sent := ck.host.Now()
	ck.r.Call("LockServer.Acquire", args, func() any { return &AcquireReply{} }, wrongLeader[*AcquireReply], func(r any) {
		reply := r.(*AcquireReply)
		switch {
		case reply.Err == OK && reply.Grant == 0: // performed by the lock service
			delete(ck.cache, key)
			ck.op = nil
			ck.lastKey, ck.lastDone = key, ck.host.Now()
			o.done(reply.Value, reply.Version, nil)
			return
		case reply.Err == OK:
			e.state, e.grant, e.value, e.version, e.leaseEnd = held, reply.Grant, reply.Value, reply.Version, sent+ck.cfg.ClientLease()
			e.used = ck.host.Now()
			e.late = e.used >= e.leaseEnd && !ck.cfg.bugs.serveExpired
			if reply.Contended {
				ck.wanted(key)
			}
			ck.watch()
			if e.late {
				ck.renew() // now, not at the next tick
			}
		case reply.Err == ErrStale: // granted, and expired before the answer got through: ask again
			delete(ck.cache, key)
		default: // a refusal of the clerk's own request: a bug, on one side or the other
			delete(ck.cache, key)
			ck.op = nil
			o.done("", 0, ck.unexpected("acquire of %q: %s: %s", key, reply.Err, reply.Reason))
			return
		}
		ck.try()
	})
}
