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
