package logorder

import (
	"time"

	"fmt"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
)

// Recent is the handler for getRecentTid: it answers with the last tid
// the server has processed, once that is at least args.Min. A server
// behind Min waits for ReadWait, then answers ErrBehind; the leader first
// puts a barrier in the log, and refuses a Min at or past the barrier's
// tid as a tid from the future.
func (s *Server) Recent(args *RecentArgs, reply *RecentReply, d *labrpc.Deferred) {
	if args.Min < 0 {
		reply.Err, reply.Reason = ErrBadRequest, fmt.Sprintf("logorder: min tid %d is negative", args.Min)
		d.Reply()
		return
	}
	answer := func(ok bool) {
		reply.Err, reply.Tid = ErrBehind, 0
		if ok {
			reply.Err, reply.Tid = OK, s.through()
		}
		d.Reply()
	}
	if s.early() {
		reply.Err, reply.Tid = OK, max(s.rs.Applied(), args.Min)
		d.Reply()
		return
	}
	if s.far(args.Min) {
		reply.Err, reply.Far = ErrBehind, true
		d.Reply()
		return
	}
	if args.Min <= s.rs.Applied() || !s.rs.IsLeader() {
		s.waitFor(args.Min, s.readWait(), answer)
		return
	}
	s.rs.Submit(rsm.Session{}, command{}, func(r any, ok bool) {
		switch {
		case !ok:
			answer(false)
		case args.Min >= r.(int):
			reply.Err, reply.Reason = ErrBadRequest, fmt.Sprintf("logorder: tid %d is in the future: the log's newest tid is %d", args.Min, r.(int))
			d.Reply()
		default:
			s.waitFor(args.Min, s.readWait(), answer)
		}
	})
}

// farBehind is how many tids past what a server has processed a read may
// ask for and still wait ReadWait: a server further behind (catching up
// after a restart) could not reach it in time, and answers ErrBehind at
// once, marked Far, so that its callers leave it alone while it catches
// up instead of paying ReadWait on it again and again.
const farBehind = 256

// far reports whether tid is farBehind or more past what the server has
// processed (and the server answers ErrBehind at all).
func (s *Server) far(tid int) bool { return !s.cfg.HoldReads && tid-s.through() >= farBehind }

// readWait is how long the server holds a read as of a tid it has not
// processed: ReadWait, or with HoldReads until it has (no limit).
func (s *Server) readWait() time.Duration {
	if s.cfg.HoldReads {
		return 0
	}
	return s.cfg.ReadWait
}

// early reports whether the planted bug has this server serve reads
// before it has caught up, from whatever it has applied: it was
// restarted.
func (s *Server) early() bool { return s.cfg.bugs.earlyReads && s.restarted }

// Get is the handler for getAsOf: it answers with the values of keys the
// server keeps as of args.Tid, once it has processed that tid (waiting
// ReadWait for it at most, then answering ErrBehind, so that the caller
// asks another owner instead of waiting for one that is catching up).
func (s *Server) Get(args *GetArgs, reply *GetReply, d *labrpc.Deferred) {
	if reason := s.badGet(args); reason != "" {
		reply.Err, reply.Reason = ErrBadRequest, reason
		d.Reply()
		return
	}
	serve := func(tid int) {
		if !s.m.st.readable(tid) {
			reply.Err, reply.Reason = ErrTooOld, fmt.Sprintf("logorder: tid %d is older than the versions kept (from %d)", tid, s.m.st.horizon)
			d.Reply()
			return
		}
		reply.Err, reply.Values = OK, make([]Read, len(args.Keys))
		for i, k := range args.Keys {
			v, found := s.m.st.get(k, tid)
			reply.Values[i] = Read{Key: k, Value: v, Found: found}
		}
		d.Reply()
	}
	if args.Latest || s.early() {
		serve(s.through())
		return
	}
	if s.far(args.Tid) {
		reply.Err, reply.Far = ErrBehind, true
		d.Reply()
		return
	}
	s.waitFor(args.Tid, s.readWait(), func(ok bool) {
		if !ok {
			reply.Err = ErrBehind
			d.Reply()
			return
		}
		serve(args.Tid)
	})
}

// badGet returns what is wrong with a read request, or "".
func (s *Server) badGet(args *GetArgs) string {
	if args.Tid < 0 {
		return fmt.Sprintf("logorder: tid %d is negative", args.Tid)
	}
	if len(args.Keys) == 0 || len(args.Keys) > MaxKeys {
		return fmt.Sprintf("logorder: a read of %d keys (1…%d)", len(args.Keys), MaxKeys)
	}
	for _, k := range args.Keys {
		if err := CheckKey(k); err != nil {
			return err.Error()
		}
		if !s.owns(k) {
			return fmt.Sprintf("logorder: node %d does not keep key %q (its owners are %v)", s.me, k, s.cfg.Layout.Owners(k))
		}
	}
	return ""
}

// Commit is the handler for a client's commit: the server, if it leads,
// puts the transaction in the log, and answers with its tid and outcome
// once it has decided it.
func (s *Server) Commit(args *CommitArgs, reply *CommitReply, d *labrpc.Deferred) {
	if err := args.Txn.check(); err != nil {
		reply.Err, reply.Reason = ErrBadRequest, err.Error()
		d.Reply()
		return
	}
	s.submit(args.Session, args.Txn, func(r any, ok bool) {
		if !ok {
			reply.Err = ErrWrongLeader
			d.Reply()
			return
		}
		tid := r.(int)
		s.outcome(tid, args.Txn, func(o Outcome, e Err) {
			reply.Err, reply.Tid, reply.Outcome = e, tid, o
			if o == Rejected {
				reply.Err, reply.Reason = ErrBadRequest, fmt.Sprintf("logorder: snapshot tid %d is not before the transaction's tid %d", args.Txn.Snapshot, tid)
			}
			d.Reply()
		})
	})
}

// submit puts transaction t of session sess in the log, and calls done
// once it is applied (as rsm.Server.Submit does). A retry of a commit
// whose entry is in the log but not yet applied waits on that entry
// instead of logging the transaction again: a clerk retries a commit that
// takes longer than its timeout, and on a link the log's replication
// saturates every retry logged again would be replicated again, which
// slows the commits further, until the retries are all the log carries.
func (s *Server) submit(sess rsm.Session, t Txn, done func(r any, ok bool)) {
	if sess.Client == 0 { // no session: nothing to recognise a retry by
		s.rs.Submit(sess, command{Txn: t}, done)
		return
	}
	if s.submitted[sess] != nil {
		s.submitted[sess] = append(s.submitted[sess], done)
		return
	}
	s.submitted[sess] = []func(any, bool){done}
	s.rs.Submit(sess, command{Txn: t}, func(r any, ok bool) {
		waiting := s.submitted[sess]
		delete(s.submitted, sess)
		for _, done := range waiting {
			done(r, ok)
		}
	})
}

// outcome calls done with the outcome of transaction t, logged at tid:
// the one the server decides when it processes tid, or, if it processed
// tid before anyone waited (a retry, or a restore passed it), one it
// decides again from the values as of tid−1.
func (s *Server) outcome(tid int, t Txn, done func(Outcome, Err)) {
	s.want[tid]++
	s.waitFor(tid, 0, func(bool) {
		o, ok := s.outcomes[tid]
		if s.want[tid]--; s.want[tid] == 0 {
			delete(s.want, tid)
			delete(s.outcomes, tid)
		}
		if ok {
			done(o, OK)
			return
		}
		s.stats.Redecided++
		s.decide(tid, t, false, done)
	})
}

// waitFor calls fn(true) once the server has processed tid, or fn(false)
// after limit (if positive) if it has not by then.
func (s *Server) waitFor(tid int, limit time.Duration, fn func(ok bool)) {
	if s.through() >= tid {
		fn(true)
		return
	}
	w := &tidWait{tid: tid, fn: fn}
	s.waits = append(s.waits, w)
	if limit > 0 {
		s.host.After(limit, func() {
			if !w.off {
				w.off = true
				fn(false)
			}
		})
	}
}

// through returns the newest tid the server's state is final for: it has
// processed every log entry up to it (tids the log gave no transaction,
// such as a retried commit's second entry, need no processing).
func (s *Server) through() int {
	if len(s.m.queue) > 0 {
		return s.m.queue[0].tid - 1
	}
	return max(s.m.processed, s.rs.Applied())
}

// wake calls the waiters whose tid the server has processed.
func (s *Server) wake() {
	var ready []*tidWait
	k, through := 0, s.through()
	for _, w := range s.waits {
		switch {
		case w.off:
		case w.tid <= through:
			w.off = true
			ready = append(ready, w)
		default:
			s.waits[k] = w
			k++
		}
	}
	s.waits = s.waits[:k]
	for _, w := range ready {
		w.fn(true)
	}
}
