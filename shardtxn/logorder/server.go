package logorder

import (
	"fmt"
	"slices"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A Server is one node: a member of the one Raft group that holds the
// transaction log, and the keeper of the key ranges the layout gives it.
// It processes the log in order: it decides each transaction that writes
// a key it keeps (and each one a client waits on it for), from the values
// as of the tid before, asking other owners for the values it has not
// got, and skips the rest.
type Server struct {
	rs    *rsm.Server
	m     *machine
	host  *sim.Host
	cfg   Config
	me    int
	nodes *nodes // the other owners, as fetches ask them
	cache *commitCache

	disk      *sim.Persister // the node's own snapshots
	saved     int            // the processed tid of the last snapshot saved
	trimmed   int            // the log index Raft was last asked to trim through
	known     []int          // each node's saved tid, as last heard (see Watermark)
	restarted bool           // started from persisted state (the planted early-reads bug serves reads then)
	busy      bool           // deciding the head of the queue
	kicking   bool           // a processing round is scheduled
	waits     []*tidWait
	want      map[int]int                       // tids commits wait on here → how many
	outcomes  map[int]Outcome                   // decided tids that commits wait on
	ahead     map[int]*prefetched               // queued tids → values fetched for them ahead (see prefetch)
	submitted map[rsm.Session][]func(any, bool) // commits logged and not yet applied → the calls that wait on them
	onDecide  func(tid int, o Outcome)
	stats     Stats
}

// Stats counts how a server decided transactions.
type Stats struct {
	Decided   int // transactions decided (not skipped)
	Skipped   int // transactions that touched none of the node's keys
	Fetches   int // requests to other owners for values as of a tid
	CacheHits int // values the commit cache answered instead
	// Remote counts the decisions of Decided that asked another owner for
	// a value (one fetch or more), and CacheSaved those that read a value
	// the node does not keep and found every such value in the commit
	// cache: the decisions the cache spared a fetch. A transaction decided
	// again for a late retry counts in neither.
	Remote, CacheSaved int
	Redecided          int // transactions decided again for a commit that came after the node processed them
}

// A tidWait is a callback for when the server has processed tid.
type tidWait struct {
	tid int
	fn  func(ok bool)
	off bool // called already (by its timeout)
}

// Start starts node me of peers (every node) on host, restoring its
// state from disk (the node's snapshot) and its log from persister (Raft's
// state). Register its Services on the host's labrpc server.
func Start(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister, disk *sim.Persister, cfg Config) (*Server, error) {
	switch {
	case host == nil:
		return nil, fmt.Errorf("logorder: Start: a nil host")
	case persister == nil:
		return nil, fmt.Errorf("logorder: Start: a nil persister")
	case disk == nil:
		return nil, fmt.Errorf("logorder: Start: a nil disk")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(peers) != cfg.Layout.Nodes {
		return nil, fmt.Errorf("logorder: %d peers for a layout of %d nodes", len(peers), cfg.Layout.Nodes)
	}
	if i := slices.Index(peers, nil); i >= 0 {
		return nil, fmt.Errorf("logorder: Start: the end to node %d is nil", i)
	}
	s := &Server{host: host, cfg: cfg, me: me, nodes: newNodes(host, peers, cfg.RPCTimeout), disk: disk, want: map[int]int{}, outcomes: map[int]Outcome{}, ahead: map[int]*prefetched{}, submitted: map[rsm.Session][]func(any, bool){},
		restarted: persister.RaftStateSize() > 0, known: make([]int, len(peers))}
	s.cache = newCommitCache(cfg.CacheSize, cfg.bugs.noInvalidate)
	s.m = &machine{me: me, st: newStore(), queuedFn: s.schedule}
	// Raft's snapshot, if it has one, is an older one of the node's own
	// (see checkpoint); the disk holds the newest.
	rcfg := cfg.RSM
	rcfg.Raft.OwnSnapshots = true // a leader's snapshot cannot stand for this node's keys
	rs, err := rsm.MakeServer(host, peers, me, persister, s.m, codec{}, rcfg)
	if err != nil {
		return nil, fmt.Errorf("logorder: node %d: %w", me, err)
	}
	if disk.SnapshotSize() > 0 {
		if err := rs.Restore(disk.ReadSnapshot()); err != nil {
			rs.Kill()
			return nil, fmt.Errorf("logorder: node %d: bad snapshot: %w", me, err)
		}
	}
	s.rs, s.saved = rs, s.m.processed
	s.m.index = rs.Applied
	if len(s.m.queue) > 0 {
		s.schedule()
	}
	rs.OnLeadership(s.leadership)
	host.After(0, s.announce)
	host.Inspect(cfg.RSM.Raft.InspectAs("logorder"), s)
	return s, nil
}

// Services returns the server's RPC services ("Server.Recent",
// "Server.Get", "Server.Commit", "Server.Saved") and its Raft node's.
func (s *Server) Services() []*labrpc.Service {
	svc := labrpc.MakeService(s)
	labrpc.HandleDeferred(svc, "Recent", s.Recent)
	labrpc.HandleDeferred(svc, "Get", s.Get)
	labrpc.HandleDeferred(svc, "Commit", s.Commit)
	labrpc.Handle(svc, "Saved", s.Saved)
	return []*labrpc.Service{svc, raftapi.ServiceOf(s.rs.Raft())}
}

// GetState returns the server's Raft term and whether it leads.
func (s *Server) GetState() (term int, isLeader bool) { return s.rs.Raft().GetState() }

// Kill stops the server and its Raft node.
func (s *Server) Kill() { s.rs.Kill() }

// Processed returns the newest tid the server has processed the log
// through.
func (s *Server) Processed() int { return s.through() }

// Pending returns how many tids commits wait on this server for.
func (s *Server) Pending() int { return len(s.want) }

// Queued returns how many transactions the server holds unprocessed.
func (s *Server) Queued() int { return len(s.m.queue) }

// Stats returns the server's counts.
func (s *Server) Stats() Stats { return s.stats }

// Versions returns how many versions the server's store holds.
func (s *Server) Versions() int { return s.m.st.versions() }

// OnDecide asks the server to call fn with each transaction it decides,
// in tid order (again after a restart): every node that decides a tid
// must reach the same outcome, which a test checks across nodes.
func (s *Server) OnDecide(fn func(tid int, o Outcome)) { s.onDecide = fn }

// leadership has a new leader put a barrier in the log: Raft commits
// nothing of an earlier term until an entry of the leader's own term
// commits, and nodes waiting for tids logged before the election would
// otherwise wait for the next client's commit.
func (s *Server) leadership(_ int, leading bool) {
	if leading {
		s.rs.Submit(rsm.Session{}, command{}, func(any, bool) {})
	}
}

// schedule runs a processing round soon, after the current event.
func (s *Server) schedule() {
	if s.kicking {
		return
	}
	s.kicking = true
	s.host.After(0, func() {
		s.kicking = false
		s.process()
	})
}
