package logorder

import "slices"

// fetch asks other owners for keys' values as of tid, a batch per set of
// owners, each batch to an owner chosen at random (of those that did not
// fail to answer lately) and, if it cannot answer, to another; done gets
// the values in the order of keys.
func (s *Server) fetch(tid int, keys []string, done func([]Read)) {
	type batch struct {
		owners []int
		at     []int // indices into keys
	}
	var batches []*batch
	for i, k := range keys {
		owners := slices.DeleteFunc(s.cfg.Layout.Owners(k), func(n int) bool { return n == s.me })
		j := slices.IndexFunc(batches, func(b *batch) bool { return slices.Equal(b.owners, owners) })
		if j < 0 {
			j = len(batches)
			batches = append(batches, &batch{owners: owners})
		}
		batches[j].at = append(batches[j].at, i)
	}
	got := make([]Read, len(keys))
	left := len(batches)
	for _, b := range batches {
		args := &GetArgs{Tid: tid, Latest: s.cfg.bugs.latestValues}
		for _, i := range b.at {
			args.Keys = append(args.Keys, keys[i])
		}
		s.stats.Fetches++
		s.nodes.ask(b.owners, "Server.Get", args, func() any { return &GetReply{} }, func(r any) bool {
			reply := r.(*GetReply)
			if reply.Err != OK {
				return false
			}
			for j, i := range b.at {
				got[i] = reply.Values[j]
			}
			if left--; left == 0 {
				done(got)
			}
			return true
		})
	}
}

// prefetchWindow is how many queued transactions past the one being
// decided may have their remote values fetched ahead while it waits for
// its own: a node that processes a backlog (restarted from its snapshot,
// or back from a partition) has that many fetches in flight instead of
// one, so that its catch-up is not a round trip per transaction (with
// the commit cache off, a node restarted 976 tids behind on links losing
// a tenth of the requests and a fifth of the replies took 25.6 s, one
// fetch at a time).
const prefetchWindow = 16

// A prefetched is the values a queued transaction will be decided with
// that were fetched ahead: the keys asked for, the values once they
// have arrived, and whoever waits for them meanwhile.
type prefetched struct {
	keys    []string
	got     []Read // nil until the values arrive
	waiting func()
}

// prefetch starts fetching, for the transactions queued after the head
// (up to prefetchWindow of them), the values as of the tid before each
// of the keys they read that the node neither keeps nor has cached, as
// decide would.
func (s *Server) prefetch() {
	if s.cfg.bugs.localRule && s.me == 0 {
		return // its own rule reads nothing remotely
	}
	for _, q := range s.m.queue[1:min(len(s.m.queue), 1+prefetchWindow)] {
		if _, ok := s.ahead[q.tid]; ok || q.txn.Snapshot >= q.tid || !s.needs(q) {
			continue
		}
		var keys []string
		for _, r := range q.txn.Reads {
			if _, cached := s.cache.get(r.Key); !s.owns(r.Key) && !cached && !slices.Contains(keys, r.Key) {
				keys = append(keys, r.Key)
			}
		}
		if len(keys) == 0 {
			continue
		}
		p := &prefetched{keys: keys}
		s.ahead[q.tid] = p
		s.fetch(q.tid-1, keys, func(got []Read) {
			p.got = got
			if p.waiting != nil {
				p.waiting()
			}
		})
	}
}

// fetchAsOf gets keys' values as of tid−1 for deciding tid: from what was
// prefetched for tid, if it asked for every key (waiting for it if it has
// not arrived), else by a fetch of its own.
func (s *Server) fetchAsOf(tid int, keys []string, done func([]Read)) {
	p, ok := s.ahead[tid]
	if !ok || slices.ContainsFunc(keys, func(k string) bool { return !slices.Contains(p.keys, k) }) {
		s.fetch(tid-1, keys, done)
		return
	}
	give := func() {
		got := make([]Read, len(keys))
		for i, k := range keys {
			got[i] = p.got[slices.Index(p.keys, k)]
		}
		done(got)
	}
	if p.got != nil {
		give()
		return
	}
	p.waiting = give
}
