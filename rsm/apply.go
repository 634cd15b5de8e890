package rsm

import (
	"fmt"

	"github.com/replab/replab/raft/raftapi"
)

// apply takes what Raft commits, in order.
func (s *Server) apply(m raftapi.ApplyMsg) {
	if m.SnapshotValid {
		if m.SnapshotIndex <= s.applied {
			return
		}
		if err := s.restore(m.Snapshot); err != nil {
			panic(fmt.Sprintf("rsm: a leader's snapshot does not decode: %v", err)) // it was made by a server like this one
		}
		// The snapshot covers these requests: their outcome is unknown
		// here, and a retry is answered from the session table.
		s.failWaiters(func(i int, _ waiter) bool { return i <= s.applied })
		s.serveReads()
		return
	}
	if !m.CommandValid || m.CommandIndex <= s.applied {
		return
	}
	s.applied = m.CommandIndex
	e := m.Command.(entry)
	result := s.execute(e)
	if w, ok := s.waiting[m.CommandIndex]; ok {
		s.forget(m.CommandIndex)
		if w.term == m.CommandTerm {
			w.done(result, true)
		} else {
			w.done(nil, false) // another leader's entry took the index
		}
	}
	s.serveReads()
	if s.cfg.MaxRaftState > 0 && s.ps.RaftStateSize() >= s.cfg.MaxRaftState {
		s.rf.Snapshot(m.CommandIndex, s.snapshot())
	}
}

// execute applies an entry's command, at most once per session request.
func (s *Server) execute(e entry) any {
	if e.barrier() {
		return nil
	}
	if e.Client == 0 {
		return s.sm.Apply(e.Cmd)
	}
	if last, ok := s.sessions[e.Client]; ok && e.Seq <= last.seq && !s.cfg.bugs.noDedup {
		return last.result
	}
	result := s.sm.Apply(e.Cmd)
	s.sessions[e.Client] = session{seq: e.Seq, result: result}
	return result
}

// serveReads answers the confirmed reads whose index has been applied.
func (s *Server) serveReads() {
	k := 0
	for _, r := range s.reads {
		if r.index <= s.applied {
			r.done(s.sm.Apply(r.cmd), true)
		} else {
			s.reads[k] = r
			k++
		}
	}
	s.reads = s.reads[:k]
}
