package logorder

import "slices"

// The watermark is the oldest tid any node would restart from: the
// smallest of the nodes' last saved snapshots, as this node has heard of
// them (each snapshot's tid only grows, so what a node has heard of
// another's is a lower bound, which is safe). Two rules follow from it.
//
// Versions: a node that restarts from its snapshot at tid S decides the
// transactions after S again, asking other owners for values as of S or
// later, so no node collects the versions as of the watermark or later.
// Without this rule a node that came back more than Versions tids behind
// would be answered ErrTooOld for ever.
//
// The log: every node's log holds every entry up to its snapshot's tid,
// which it applied, so a leader never needs an entry at or below the
// watermark to bring a follower up to date; a node trims its log through
// the tid before the watermark (keeping the watermark's own entry, so that
// a follower's mismatch never sends the leader back past it: Raft then
// never sends a snapshot, which could not stand for another node's keys).

// checkpoint saves the node's snapshot to its disk, tells the other nodes,
// and has Raft trim the log below the watermark.
func (s *Server) checkpoint() {
	snap := s.rs.Snapshot()
	s.disk.Save(nil, snap)
	s.saved = s.m.processed
	s.announce()
	if through := s.Watermark() - 1; through > s.trimmed {
		s.rs.Raft().Snapshot(through, snap)
		s.trimmed = through
	}
}

// SavedArgs tells another node the tid of a node's newest snapshot.
type SavedArgs struct {
	Node int
	Tid  int
}

// SavedReply is empty: a lost announcement is made good by the next.
type SavedReply struct{}

// Saved is the handler for another node's announcement of its newest
// snapshot.
func (s *Server) Saved(args *SavedArgs, _ *SavedReply) {
	if args.Node >= 0 && args.Node < len(s.known) && args.Node != s.me {
		s.known[args.Node] = max(s.known[args.Node], args.Tid)
	}
}

// announce tells every other node the tid of this node's newest snapshot,
// once, without waiting for an answer.
func (s *Server) announce() {
	s.known[s.me] = s.saved
	for i, end := range s.nodes.ends {
		if i != s.me {
			end.Call("Server.Saved", &SavedArgs{Node: s.me, Tid: s.saved}, &SavedReply{}, func(bool) {})
		}
	}
}

// Watermark returns the smallest tid any node would restart from, as the
// server knows: versions as of it or later are kept.
func (s *Server) Watermark() int { return slices.Min(s.known) }

// collect drops versions no one will ask for: those before both the
// Versions newest tids and the watermark, once more than Versions tids
// of them have piled up.
func (s *Server) collect() {
	if horizon := min(s.m.processed-s.cfg.Versions, s.Watermark()); horizon-s.m.st.horizon > s.cfg.Versions {
		s.m.st.collect(horizon)
	}
}
