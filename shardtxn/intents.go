package shardtxn

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// resolve is paper 003's conflict resolution (WriteIntents): res says that
// a prepare (or a transaction on this shard alone) met res.Holder's write
// intent or read lock on res.Conflict. The shard asks the coordinator how
// the holder stands. Pending, the prepare aborts itself: a transaction in
// flight holds the key. Committed or aborted, the shard resolves the
// intent through its log, installing or discarding it, and the prepare
// tries again (retry). With no answer by deadline, the prepare votes no
// (no).
func (s *ShardServer) resolve(res shardResult, deadline time.Duration, retry func(), no func(reason string), done func(shardResult, bool)) {
	if s.host.Now() >= deadline {
		no("could not resolve the write intent on " + res.Conflict)
		return
	}
	if s.cfg.bugs.resolveWithoutAsking {
		s.settle(res.Holder, false, func(bool) { retry() })
		return
	}
	s.ask(res.Holder, deadline, func(st state, answered bool) {
		switch {
		case !answered:
			no(fmt.Sprintf("no word from the coordinator on %v, which holds %s", res.Holder, res.Conflict))
		case st == preparing:
			no(fmt.Sprintf("write intent of %v, pending, on %s", res.Holder, res.Conflict))
		default:
			s.settle(res.Holder, st == committed, func(ok bool) {
				if !ok {
					done(shardResult{}, false)
					return
				}
				retry()
			})
		}
	})
}

// ask asks the coordinator group how id stands (CoordServer.Status) and
// calls answer with its state, or with answered false if no answer came by
// deadline, when the question is cancelled (zero: no deadline; the
// question is asked until answered). It returns the question's cancel.
func (s *ShardServer) ask(id Txid, deadline time.Duration, answer func(st state, answered bool)) (cancel func()) {
	over := false
	once := func(st state, answered bool) {
		if !over {
			over = true
			answer(st, answered)
		}
	}
	cancel = s.coord.Call("CoordServer.Status", &StatusArgs{ID: id}, func() any { return &StatusReply{} }, wrongLeader[*StatusReply], func(r any) {
		reply := r.(*StatusReply)
		st := preparing
		switch {
		case reply.Committed:
			st = committed
		case reply.Decided:
			st = aborted
		}
		once(st, true)
	})
	if deadline > 0 {
		s.host.After(deadline-s.host.Now(), func() {
			cancel()
			once(0, false)
		})
	}
	return cancel
}

// settle puts id's decision through the shard's log, whether the
// coordinator sent it or the shard learned it by asking, and calls done
// once it is applied (ok false: this server does not lead). A decision
// applied twice changes nothing the second time, and the leader answers
// it without a new entry (see shard.known).
func (s *ShardServer) settle(id Txid, commit bool, done func(ok bool)) {
	s.submit(shardCmd{Decide: &decideCmd{ID: id, Commit: commit}}, func(_ any, ok bool) { done(ok) })
}

// cleanup is paper 003's background cleanup, run every Tick under its
// options: the shard leader asks the coordinator about each transaction
// prepared here for CleanupAge (its coordinator may have crashed; under
// PresumedCommit nobody else delivers a commit a crashed leader had not
// delivered) and applies the decision. A pending one is asked again
// CleanupAge later: the coordinator times it out. A question is
// cancelled once its transaction is decided here, or the replica no
// longer leads.
func (s *ShardServer) cleanup() {
	s.cleaner.Reset(s.cfg.Tick)
	leading := s.rs.IsLeader()
	for _, id := range slices.SortedFunc(maps.Keys(s.asking), compareTxid) {
		if !leading || s.sm.prepared[id] == nil {
			s.asking[id]()
			delete(s.asking, id)
		}
	}
	if !leading {
		clear(s.seen)
		return
	}
	now := s.host.Now()
	for id := range s.seen {
		if s.sm.prepared[id] == nil {
			delete(s.seen, id)
		}
	}
	for _, id := range slices.SortedFunc(maps.Keys(s.sm.prepared), compareTxid) {
		first, ok := s.seen[id]
		switch {
		case !ok:
			s.seen[id] = now
		case now-first < s.cfg.CleanupAge || s.asking[id] != nil:
		case s.cfg.bugs.cleanupAborts:
			s.settle(id, false, func(bool) {})
		default:
			s.asking[id] = s.ask(id, 0, func(st state, _ bool) {
				delete(s.asking, id)
				if st == preparing {
					s.seen[id] = s.host.Now()
					return
				}
				s.settle(id, st == committed, func(bool) {})
			})
		}
	}
}
