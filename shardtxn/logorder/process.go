package logorder

import "math"

// process decides or skips the queued transactions in tid order, until
// one waits for other owners' values (it goes on when they arrive).
func (s *Server) process() {
	for !s.busy && len(s.m.queue) > 0 {
		q := s.m.queue[0]
		if len(q.txn.Reads)+len(q.txn.Writes) == 0 {
			s.advance(q.tid) // a barrier
			continue
		}
		if !s.needs(q) {
			s.skip(q)
			continue
		}
		s.busy = true
		sync, got := true, false
		var out Outcome
		// Processing, the cache holds the newest values (none without it).
		s.decide(q.tid, q.txn, true, func(o Outcome, _ Err) {
			if sync {
				out, got = o, true
				return
			}
			s.busy = false
			s.finish(q, o)
			s.process()
		})
		sync = false
		if got {
			s.busy = false
			s.finish(q, out)
		} else {
			s.prefetch()
		}
	}
}

// needs reports whether the node must decide q: it writes a key the node
// keeps, or a client waits on the node for it; or, with the commit cache,
// the node can decide it without asking anyone, and caches its writes.
func (s *Server) needs(q queued) bool {
	if s.want[q.tid] > 0 {
		return true
	}
	for _, w := range q.txn.Writes {
		if s.owns(w.Key) {
			return true
		}
	}
	if s.cfg.CacheSize == 0 {
		return false
	}
	for _, r := range q.txn.Reads {
		if _, cached := s.cache.get(r.Key); !cached && !s.owns(r.Key) {
			return false
		}
	}
	return true
}

// skip passes over a transaction the node does not decide: it may have
// written keys the cache holds, which the cache forgets.
func (s *Server) skip(q queued) {
	s.cache.invalidate(q.txn.Writes)
	s.stats.Skipped++
	s.advance(q.tid)
}

// finish applies a decided transaction: the writes to the node's keys go
// into the store as versions of tid, and the others into the cache.
func (s *Server) finish(q queued, o Outcome) {
	if o == Applied {
		var others []Write
		for _, w := range q.txn.Writes {
			if s.owns(w.Key) {
				s.m.st.put(w.Key, q.tid, w.Value)
			} else {
				others = append(others, w)
			}
		}
		s.cache.add(q.tid, others)
	}
	s.stats.Decided++
	if s.want[q.tid] > 0 {
		s.outcomes[q.tid] = o
	}
	if s.onDecide != nil {
		s.onDecide(q.tid, o)
	}
	s.advance(q.tid)
}

// advance marks tid, the head of the queue, processed, collects old
// versions and checkpoints now and then, and wakes whoever waited for
// tid.
func (s *Server) advance(tid int) {
	s.m.processed = tid
	s.m.queue = s.m.queue[1:]
	delete(s.ahead, tid)
	s.collect()
	if s.cfg.SnapshotEvery > 0 && s.m.processed-s.saved >= s.cfg.SnapshotEvery {
		s.checkpoint()
	}
	s.wake()
}

func (s *Server) owns(key string) bool { return s.cfg.Layout.Owns(s.me, key) }

// decide works out transaction t's outcome at tid (paper 004, §2.3): it
// compares each value t read with the key's value as of tid−1, which it
// takes from its own store, from the commit cache (with useCache: only
// while processing, when the cache holds the newest values) or from
// another owner that has applied tid−1.
func (s *Server) decide(tid int, t Txn, useCache bool, done func(Outcome, Err)) {
	if t.Snapshot >= tid {
		done(Rejected, OK)
		return
	}
	asOf := tid - 1
	if s.cfg.bugs.latestValues {
		asOf = math.MaxInt
	} else if !s.m.st.readable(asOf) {
		done(0, ErrTooOld)
		return
	}
	values := make([]Read, len(t.Reads))
	var remote []int
	hits := 0
	for i, r := range t.Reads {
		if s.owns(r.Key) {
			v, found := s.m.st.get(r.Key, asOf)
			values[i] = Read{Key: r.Key, Value: v, Found: found}
			continue
		}
		if useCache {
			if v, ok := s.cache.get(r.Key); ok {
				s.stats.CacheHits++
				hits++
				values[i] = Read{Key: r.Key, Value: v, Found: true}
				continue
			}
		}
		if s.cfg.bugs.localRule && s.me == 0 {
			values[i] = r // its own rule: a read of another node's key always matches
			continue
		}
		remote = append(remote, i)
	}
	compare := func() {
		for i, r := range t.Reads {
			if values[i] != r {
				done(ConflictIgnored, OK)
				return
			}
		}
		done(Applied, OK)
	}
	if len(remote) == 0 {
		if hits > 0 {
			s.stats.CacheSaved++
		}
		compare()
		return
	}
	keys := make([]string, len(remote))
	for j, i := range remote {
		keys[j] = t.Reads[i].Key
	}
	s.fetchAsOf(tid, keys, func(got []Read) {
		for j, i := range remote {
			values[i] = got[j]
		}
		if useCache { // processing the log: a decision Decided counts as it ends
			s.stats.Remote++
		}
		compare()
	})
}
