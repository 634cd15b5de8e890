package frangipani

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A LockServer is one replica of the lock service: the lock table on
// rsm, whose every change (a grant, a renewal, a release with the values
// flushed under it, an expiry) goes through the Raft log.
type LockServer struct {
	rs   *rsm.Server
	t    *table
	host *sim.Host
	cfg  Config

	// seen is when this replica applied each holding's grant or latest
	// renewal, on its own clock: no earlier than the client sent the
	// request, so a lease counted from it ends no sooner than the client's.
	seen map[int64]time.Duration
	// waiting are the acquires this leader holds until their lock is
	// granted, by client and key.
	waiting  map[clientKey][]heldBack
	expiring map[int64]bool // the holdings this leader has asked to expire
	// watches are the clerks' watches this leader holds, by client.
	watches map[int64]heldWatch
	ticker  *sim.Timer
}

// A heldBack is an acquire a leader answers once its lock is granted.
type heldBack struct {
	reply *AcquireReply
	d     *labrpc.Deferred
}

// A heldWatch is a clerk's watch a leader answers when another client
// waits for one of its locks.
type heldWatch struct {
	args  *WatchArgs
	reply *WatchReply
	d     *labrpc.Deferred
}

// StartLockServer starts replica me of the lock service on host,
// restoring what persister holds. Register its Services on the host's
// labrpc server. Peers are the ends to every replica (peers[me] is not
// used and may be nil).
func StartLockServer(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, cfg Config) (*LockServer, error) {
	switch {
	case host == nil:
		return nil, fmt.Errorf("frangipani: StartLockServer: a nil host")
	case persister == nil:
		return nil, fmt.Errorf("frangipani: StartLockServer: a nil persister")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	for p, end := range peers {
		if end == nil && p != me {
			return nil, fmt.Errorf("frangipani: StartLockServer: the end to peer %d is nil", p)
		}
	}
	s := &LockServer{t: newTable(cfg), host: host, cfg: cfg, seen: map[int64]time.Duration{},
		waiting: map[clientKey][]heldBack{}, expiring: map[int64]bool{}, watches: map[int64]heldWatch{}}
	s.t.granted, s.t.performed, s.t.renewed, s.t.gone, s.t.queued = s.granted, s.performed, s.renewed, s.gone, s.queued
	rs, err := rsm.MakeServer(host, peers, me, persister, s.t, rsm.NewGobCodec[command, result](), cfg.RSM)
	if err != nil {
		return nil, err
	}
	s.rs = rs
	s.ticker = host.NewTimer(s.tick)
	rs.OnLeadership(s.leadership)
	host.Inspect(cfg.RSM.Raft.InspectAs("lock"), s)
	return s, nil
}

// serviceType is LockServer's RPC methods, found and checked once
// (labrpc.ServiceType): a search builds a world, and its servers'
// services, for every schedule it runs.
var serviceType = labrpc.TypeOf((*LockServer)(nil))

// Services returns the server's RPC services ("LockServer.Acquire",
// "LockServer.Renew", "LockServer.Release", "LockServer.Watch") and its
// Raft node's.
func (s *LockServer) Services() []*labrpc.Service {
	svc := serviceType.Service(s)
	labrpc.HandleDeferred(svc, "Acquire", s.Acquire)
	labrpc.HandleDeferred(svc, "Renew", s.Renew)
	labrpc.HandleDeferred(svc, "Release", s.Release)
	labrpc.HandleDeferred(svc, "Watch", s.Watch)
	return []*labrpc.Service{svc, raftapi.ServiceOf(s.rs.Raft())}
}

// GetState returns the server's Raft term and whether it leads.
func (s *LockServer) GetState() (term int, isLeader bool) { return s.rs.Raft().GetState() }

// Kill stops the server and its Raft node.
func (s *LockServer) Kill() { s.rs.Kill() }

// Value returns key's value and version as this replica last applied
// them, and how many clients hold its lock.
func (s *LockServer) Value(key string) (value string, version int64, holders int) {
	l, ok := s.t.locks[key]
	if !ok {
		return "", 0, 0
	}
	return l.Value, l.Version, len(l.Holders)
}

// Acquire is the handler for a lock request: it answers once the lock is
// granted, which may wait for other holders to give it up.
func (s *LockServer) Acquire(args *AcquireArgs, reply *AcquireReply, d *labrpc.Deferred) {
	if reason := s.malformed(args); reason != "" {
		reply.Err, reply.Reason = ErrBadRequest, reason
		d.Reply()
		return
	}
	s.hint(args)
	s.rs.Submit(rsm.Session{}, command{Acquire: args}, func(r any, ok bool) {
		if !ok {
			reply.Err = ErrWrongLeader
			d.Reply()
			return
		}
		res := r.(result)
		if res.Queued {
			ck := clientKey{args.Client, args.Key}
			s.waiting[ck] = append(s.waiting[ck], heldBack{reply, d})
			return
		}
		reply.Err, reply.Grant, reply.Value, reply.Version, reply.Reason = res.Err, res.Grant, res.Value, res.Version, res.Reason
		d.Reply()
	})
}

// malformed says what is wrong with an acquire no clerk would send, or
// returns "".
func (s *LockServer) malformed(a *AcquireArgs) string {
	switch {
	case a.Key == "" || (a.Mode != Shared && a.Mode != Exclusive):
		return fmt.Sprintf("an acquire needs a key and a mode, got key %q mode %v", a.Key, a.Mode)
	case len(a.Key) > MaxKey:
		return fmt.Sprintf("a key of %d bytes is over the limit of %d (MaxKey)", len(a.Key), MaxKey)
	case a.Op == nil:
		return ""
	case a.Op.Mode() != a.Mode:
		return fmt.Sprintf("an acquire in mode %v with an operation of kind %d, which needs mode %v", a.Mode, a.Op.Kind, a.Op.Mode())
	case len(a.Op.Value) > s.cfg.MaxValue:
		return fmt.Sprintf("a value of %d bytes for key %q is over the limit of %d (MaxValue)", len(a.Op.Value), a.Key, s.cfg.MaxValue)
	}
	return ""
}

// Renew is the handler for a clerk's renewal of its leases.
func (s *LockServer) Renew(args *RenewArgs, reply *RenewReply, d *labrpc.Deferred) {
	s.rs.Submit(rsm.Session{}, command{Renew: args}, func(r any, ok bool) {
		reply.Err = ErrWrongLeader
		if ok {
			reply.Err, reply.Status = OK, r.(result).Status
		}
		d.Reply()
	})
}

// Release is the handler for a clerk's release (or flush) of locks with
// the values written under them.
func (s *LockServer) Release(args *ReleaseArgs, reply *ReleaseReply, d *labrpc.Deferred) {
	s.rs.Submit(rsm.Session{Client: args.Client, Seq: args.Seq}, command{Release: args}, func(r any, ok bool) {
		reply.Err = ErrWrongLeader
		if ok {
			reply.Err, reply.Status = OK, r.(result).Status
		}
		d.Reply()
	})
}

// Watch is the handler for a clerk's watch of its locks: a leader answers
// it once another client waits for one of them, or after RenewEvery with
// none. It reads the leader's memory, not the log: the answer is a hint
// to release early, and a release is safe whenever it comes.
func (s *LockServer) Watch(args *WatchArgs, reply *WatchReply, d *labrpc.Deferred) {
	if !s.rs.IsLeader() {
		reply.Err = ErrWrongLeader
		d.Reply()
		return
	}
	w := heldWatch{args, reply, d}
	if s.answer(w, waitedFor("")) {
		return
	}
	if old, ok := s.watches[args.Client]; ok {
		old.reply.Err = OK
		old.d.Reply()
	}
	s.watches[args.Client] = w
	s.host.After(s.cfg.RenewEvery, func() {
		if cur, ok := s.watches[args.Client]; ok && cur.d == d {
			delete(s.watches, args.Client)
			reply.Err = OK
			d.Reply()
		}
	})
}

// answer answers a watch with those of its locks the watcher still holds
// that wanted picks, if there are any.
func (s *LockServer) answer(w heldWatch, wanted func(l *lock, h holder) bool) bool {
	for _, held := range w.args.Locks {
		l, i := s.t.holding(w.args.Client, held)
		if i >= 0 && wanted(l, l.Holders[i]) {
			w.reply.Locks = append(w.reply.Locks, held)
		}
	}
	if len(w.reply.Locks) == 0 {
		return false
	}
	w.reply.Err = OK
	w.d.Reply()
	return true
}

// waitedFor picks the locks that another client waits for, of key only
// unless key is "".
func waitedFor(key string) func(l *lock, h holder) bool {
	return func(l *lock, _ holder) bool { return (key == "" || l.Key == key) && len(l.Waiters) > 0 }
}

// queued answers the watches of a lock's holders when a client starts
// waiting for it.
func (s *LockServer) queued(l *lock) {
	s.tell(l, waitedFor(l.Key))
}

// tell answers the watches of l's holders that wanted picks.
func (s *LockServer) tell(l *lock, wanted func(l *lock, h holder) bool) {
	for _, h := range l.Holders {
		if w, ok := s.watches[h.Client]; ok && s.answer(w, wanted) {
			delete(s.watches, h.Client)
		}
	}
}

// hint answers, as soon as an acquire reaches the leader, the watches of
// the holders it will wait for, so that they release while the acquire
// goes through the log instead of after: a hand-over then takes one round
// through the log (the release's), not two. It reads the leader's memory:
// a hint for an acquire that never commits only costs its holders their
// cache.
func (s *LockServer) hint(a *AcquireArgs) {
	l, ok := s.t.locks[a.Key]
	if !ok || !s.rs.IsLeader() {
		return
	}
	s.tell(l, func(l *lock, h holder) bool {
		return l.Key == a.Key && h.Client != a.Client && conflicts(h.Mode, a.Mode)
	})
}

// conflicts reports whether locks in modes a and b cannot be held at once.
func conflicts(a, b Mode) bool { return a == Exclusive || b == Exclusive }

// granted notes a new holding, adds it to its client's watch (it was
// granted after the watch was sent) and answers the acquires waiting for
// it, saying whether others wait behind.
func (s *LockServer) granted(l *lock, h holder) {
	s.seen[h.Grant] = s.host.Now()
	if w, ok := s.watches[h.Client]; ok {
		w.args.Locks = append(w.args.Locks, Held{Key: l.Key, Grant: h.Grant})
		if s.answer(w, waitedFor(l.Key)) {
			delete(s.watches, h.Client)
		}
	}
	contended := slices.ContainsFunc(l.Waiters, func(w waiter) bool { return conflicts(w.Mode, h.Mode) })
	ck := clientKey{h.Client, l.Key}
	for _, w := range s.waiting[ck] {
		w.reply.Err, w.reply.Grant, w.reply.Value, w.reply.Version, w.reply.Contended = OK, h.Grant, l.Value, l.Version, contended
		w.d.Reply()
	}
	delete(s.waiting, ck)
}

// performed answers the acquire waiting for an operation the lock
// service performed.
func (s *LockServer) performed(l *lock, client int64, r result) {
	ck := clientKey{client, l.Key}
	for _, w := range s.waiting[ck] {
		w.reply.Err, w.reply.Value, w.reply.Version = r.Err, r.Value, r.Version
		w.d.Reply()
	}
	delete(s.waiting, ck)
}

func (s *LockServer) renewed(grant int64) { s.seen[grant] = s.host.Now() }

func (s *LockServer) gone(grant int64) {
	delete(s.seen, grant)
	delete(s.expiring, grant)
}

// leadership starts the leader's look-out for leases that ran out, or
// stops it and sends the acquires it held back elsewhere.
func (s *LockServer) leadership(_ int, leading bool) {
	if leading {
		s.ticker.Reset(s.cfg.Tick)
		return
	}
	s.ticker.Stop()
	clear(s.expiring)
	for _, c := range slices.Sorted(maps.Keys(s.watches)) {
		w := s.watches[c]
		w.reply.Err = ErrWrongLeader
		w.d.Reply()
	}
	clear(s.watches)
	waiting := s.waiting
	s.waiting = map[clientKey][]heldBack{}
	for _, ck := range slices.SortedFunc(maps.Keys(waiting), compareClientKeys) {
		for _, w := range waiting[ck] {
			w.reply.Err = ErrWrongLeader
			w.d.Reply()
		}
	}
}

// tick asks, through the log, to take each lock whose holder's lease ran
// out (shared) or who has been silent for BreakAfter (exclusive) while
// another client waits for it.
func (s *LockServer) tick() {
	s.ticker.Reset(s.cfg.Tick)
	now := s.host.Now()
	var keys []string
	for k, l := range s.t.locks {
		if len(l.Waiters) > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, h := range s.t.locks[k].Holders {
			limit := s.cfg.Lease
			if h.Mode == Exclusive {
				limit = s.cfg.BreakAfter
			}
			seen, ok := s.seen[h.Grant]
			if !ok || now-seen < limit || s.expiring[h.Grant] {
				continue
			}
			s.expiring[h.Grant] = true
			grant := h.Grant
			s.rs.Submit(rsm.Session{}, command{Expire: &expireCmd{Key: k, Grant: grant, Renewals: h.Renewals}}, func(any, bool) {
				delete(s.expiring, grant)
			})
		}
	}
}
