package rsm

import (
	"fmt"
	"slices"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim"
)

// A StateMachine is a service's state, as a Server drives it.
type StateMachine interface {
	// Apply executes a command and returns its result. The Server calls
	// it for every committed command, in log order and at most once per
	// session request, and for read-only commands it serves without the
	// log (which must then not change the state).
	Apply(cmd any) any
	// Snapshot returns the state as bytes; equal states give equal bytes.
	Snapshot() []byte
	// Restore replaces the state with a snapshot's; an empty snapshot is
	// the initial state. A snapshot that cannot be decoded is an error.
	Restore(snapshot []byte) error
}

// A Codec turns a service's commands (for the Raft log) and results (for
// the session table in snapshots) into bytes, and back. Encoding must be
// deterministic; decoding bad bytes must be an error, not a panic.
type Codec interface {
	AppendCommand(b []byte, cmd any) ([]byte, error)
	DecodeCommand(b []byte) (any, error)
	AppendResult(b []byte, result any) ([]byte, error)
	DecodeResult(b []byte) (any, error)
}

// A Session names a client request for at-most-once execution: the
// client's ID, and a sequence number that grows with each of its requests.
// The zero Session asks for no de-duplication (for reads).
type Session struct {
	Client int64
	Seq    int64
}

// Done receives the outcome of a request: its result, with ok true; or ok
// false if this server cannot say (it does not lead, or lost leadership,
// or the entry was overwritten or covered by a snapshot before it applied
// here), in which case the request may or may not take effect and the
// client should retry elsewhere with the same session.
type Done func(result any, ok bool)

// A node is the Raft a Server needs: the lab's API, news of leadership and
// confirmed reads.
type node interface {
	raftapi.Raft
	raftapi.LeadershipWatcher
	raftapi.Reader
}

// A Server runs a StateMachine on a Raft node.
type Server struct {
	host  *sim.Host
	rf    node
	ps    *sim.Persister
	sm    StateMachine
	codec Codec
	cfg   Config

	applied  int
	sessions map[int64]session // each client's latest request and its result
	snapLen  int               // the last snapshot's length, the next one's buffer (see snapshot)

	waiting map[int]waiter  // requests this leader submitted, by log index
	logged  map[Session]int // the index of each waiting session request
	reads   []pendingRead   // confirmed reads waiting for the log to be applied

	onLeadership func(term int, leading bool) // the service's, or nil
	me           int
	listing      Listing // where the server announces its leadership (Announce), if anywhere
}

type session struct {
	seq    int64
	result any
}

type waiter struct {
	term int
	sess Session
	done Done
}

type pendingRead struct {
	index int
	cmd   any
	done  Done
}

// MakeServer starts replica me of peers on host around sm, restoring what
// persister holds. The host shows its state and its Raft node's (see
// Inspect), named "rsm" and "raft", qualified by cfg.Raft.Group if it is
// set. Register the returned server's Raft() as a service on
// the host's labrpc server, beside the service's own handlers.
func MakeServer(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, sm StateMachine, codec Codec, cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{host: host, ps: persister, sm: sm, codec: codec, cfg: cfg, me: me, sessions: map[int64]session{}, waiting: map[int]waiter{}, logged: map[Session]int{}}
	if err := s.restore(persister.ReadSnapshot()); err != nil {
		return nil, fmt.Errorf("rsm: server %d: bad snapshot: %w", me, err)
	}
	rcfg := cfg.Raft
	rcfg.Codec = entryCodec{codec}
	if cfg.bugs.leaseNoMargin {
		rcfg.LeaseDrift = 0
	}
	rf, err := raft.Make(host, peers, me, persister, s.apply, rcfg)
	if err != nil {
		return nil, err
	}
	rf.OnLeadership(s.leadership)
	s.rf = rf
	host.Inspect(cfg.Raft.InspectAs("rsm"), s)
	return s, nil
}

// Raft returns the server's Raft node.
func (s *Server) Raft() raftapi.Raft { return s.rf }

// Kill stops the server and its Raft node.
func (s *Server) Kill() { s.rf.Kill() }

// Applied returns the index of the last log entry applied. Inside
// StateMachine.Apply it is the index of the entry being applied: a service
// that names its commands by log position (a transaction's id) reads it
// there.
func (s *Server) Applied() int { return s.applied }

// Submit puts cmd, a request of session sess, in the log, and calls done
// once it is applied (see Done). A retry of a request already applied is
// answered from the session table at once; a retry of one still waiting
// in this leader's log waits for that entry instead of logging it again
// (a client that retries on a slow link would otherwise fill the log with
// copies).
func (s *Server) Submit(sess Session, cmd any, done Done) {
	if last, ok := s.sessions[sess.Client]; ok && sess.Client != 0 && sess.Seq == last.seq && !s.cfg.bugs.noDedup {
		done(last.result, true)
		return
	}
	if s.joinLogged(sess, done) {
		return
	}
	index, term, isLeader := s.rf.Start(entry{Session: sess, Cmd: cmd})
	if !isLeader {
		done(nil, false)
		return
	}
	if s.cfg.bugs.replyBeforeCommit && sess.Client != 0 {
		done(nil, true)
		return
	}
	if old, ok := s.waiting[index]; ok {
		s.forget(index)
		old.done(nil, false) // its entry was overwritten
	}
	s.waiting[index] = waiter{term: term, sess: sess, done: done}
	if sess.Client != 0 {
		s.logged[sess] = index
	}
}

// joinLogged makes done wait, beside the first try's, for the entry that
// this leader logged for sess in its current term, if there is one; it
// reports whether there was.
func (s *Server) joinLogged(sess Session, done Done) bool {
	if sess.Client == 0 || s.cfg.bugs.noDedup {
		return false
	}
	index, ok := s.logged[sess]
	w, waiting := s.waiting[index]
	if !ok || !waiting || w.sess != sess {
		return false
	}
	if term, leading := s.rf.GetState(); !leading || term != w.term {
		return false
	}
	first := w.done
	w.done = func(result any, ok bool) {
		first(result, ok)
		done(result, ok)
	}
	s.waiting[index] = w
	return true
}

// forget drops the waiter at index, which is answered next.
func (s *Server) forget(index int) {
	if w, ok := s.waiting[index]; ok {
		delete(s.waiting, index)
		if s.logged[w.sess] == index {
			delete(s.logged, w.sess)
		}
	}
}

// Read serves cmd, which must not change the state, as Config.Reads says:
// through the log, or once a round of heartbeats or the leader's lease
// confirms that this server leads and it has applied what was committed.
func (s *Server) Read(cmd any, done Done) {
	if s.cfg.bugs.localReads {
		done(s.sm.Apply(cmd), true)
		return
	}
	if s.cfg.Reads == ReadLease {
		if index, ok := s.rf.LeaseRead(); ok {
			s.readAt(index, cmd, done)
			return
		}
	}
	if s.cfg.Reads != ReadLog {
		confirmed := func(index int, ok bool) {
			if !ok {
				done(nil, false)
				return
			}
			s.readAt(index, cmd, done)
		}
		if s.rf.ReadIndex(confirmed) {
			return
		}
	}
	s.Submit(Session{}, cmd, done)
}

// readAt serves a read once the log is applied up to index.
func (s *Server) readAt(index int, cmd any, done Done) {
	if s.applied >= index {
		done(s.sm.Apply(cmd), true)
		return
	}
	s.reads = append(s.reads, pendingRead{index: index, cmd: cmd, done: done})
}

// OnLeadership asks the server to call fn when its Raft node becomes
// leader of a term (leading true) or stops leading it (false), after the
// server has answered the requests it can no longer see through: a service
// whose leader drives work of its own (a coordinator finishing
// transactions) starts and stops it so.
func (s *Server) OnLeadership(fn func(term int, leading bool)) { s.onLeadership = fn }

// IsLeader reports whether the server's Raft node believes it leads.
func (s *Server) IsLeader() bool {
	_, leading := s.rf.GetState()
	return leading
}

// leadership answers every waiting request of a term this node stopped
// leading: their entries may never commit, and the clerks should try
// elsewhere now rather than time out. A new leader puts a barrier in its
// log, so that the entries of earlier terms commit and apply everywhere,
// its own state included, without waiting for a client's next request: a
// shard that holds a prepared transaction's locks would otherwise keep
// them until someone wrote to it again.
func (s *Server) leadership(term int, leading bool) {
	if !leading {
		s.failWaiters(func(_ int, w waiter) bool { return w.term <= term })
	} else {
		// After this event (the node must not be called back from within
		// it), put a barrier in the log.
		s.host.After(0, func() { s.rf.Start(entry{Session: Session{Client: barrierClient}}) })
	}
	if s.listing.Dir != nil {
		s.report(term, leading)
	}
	if s.onLeadership != nil {
		s.onLeadership(term, leading)
	}
}

// failWaiters answers ok false to the waiting requests that match, in
// index order.
func (s *Server) failWaiters(match func(index int, w waiter) bool) {
	var indices []int
	for i, w := range s.waiting {
		if match(i, w) {
			indices = append(indices, i)
		}
	}
	slices.Sort(indices)
	for _, i := range indices {
		w := s.waiting[i]
		s.forget(i)
		w.done(nil, false)
	}
}
