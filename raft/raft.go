package raft

import (
	"fmt"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim"
)

// ApplyMsg is what a node hands its service, in order: a committed command
// (CommandValid) or a snapshot received from the leader (SnapshotValid).
type ApplyMsg = raftapi.ApplyMsg

type role int

// noVote is votedFor before a node votes in its term.
const noVote = -1

const (
	follower role = iota
	candidate
	leader
)

// Raft is one Raft node.
type Raft struct {
	host      *sim.Host
	w         *sim.World
	peers     []*labrpc.ClientEnd
	me        int
	persister *sim.Persister
	apply     func(ApplyMsg)
	cfg       Config
	dead      bool

	// Persistent state.
	term     int
	votedFor int
	log      raftLog
	snapshot []byte
	snapSum  uint32 // checksum of snapshot
	dirty    bool   // persistent state changed since the last save
	trailer  []byte // reused for encoding term, vote and snapSum

	// Volatile state.
	role        role
	leader      int           // the peer this node knows leads its term (itself when it leads), or noVote
	heardLeader time.Duration // when the leader was last heard from (local clock)
	commitIndex int
	lastApplied int

	votes       int // votes (or pre-votes) granted in the current round
	round       int // identifies the (pre-)election under way (see endRound)
	snapPending bool

	// Leader state, per peer.
	nextIndex  []int
	matchIndex []int
	inflight   []int           // ID of the AppendEntries carrying entries in flight, or 0
	short      []bool          // refused an AppendEntries at or below the log's base: needs the snapshot
	ackSent    []time.Duration // when the latest message the peer answered was sent (local clock)
	leadSince  time.Duration   // when this node became leader (local clock)
	leadTerm   int             // the term it leads
	sends      int             // IDs for in-flight tracking
	reads      []pendingRead   // ReadIndex requests waiting for a quorum

	electionTimer  *sim.Timer
	heartbeatTimer *sim.Timer
	applyTimer     *sim.Timer                     // pending while applyCommitted is scheduled
	onLeadership   []func(term int, leading bool) // every listener, in the order they subscribed
}

// Make returns a node on host, peer me of peers (peers[me] is unused),
// restored from what persister holds, delivering committed entries and
// snapshots through apply. Its election timer starts at once.
func Make(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, apply func(ApplyMsg), cfg Config) (*Raft, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if me < 0 || me >= len(peers) {
		return nil, fmt.Errorf("raft: me = %d is not a peer index in 0..%d", me, len(peers)-1)
	}
	rf := &Raft{
		host: host, w: host.World(), peers: peers, me: me, persister: persister, apply: apply, cfg: cfg,
		votedFor: noVote, leader: noVote, log: newLog(cfg.Codec),
	}
	if err := rf.restore(persister.ReadRaftState(), persister.ReadSnapshot()); err != nil {
		return nil, fmt.Errorf("raft: server %d: bad persisted state: %w", me, err)
	}
	rf.commitIndex, rf.lastApplied = rf.log.base, rf.log.base
	rf.heardLeader = host.Now() // see leaseBound
	rf.electionTimer = host.NewTimer(rf.electionTimeout)
	rf.heartbeatTimer = host.NewTimer(rf.heartbeatTick)
	rf.applyTimer = host.NewTimer(rf.applyCommitted)
	rf.resetElectionTimer()
	host.Inspect(cfg.InspectAs("raft"), rf)
	return rf, nil
}

// Maker returns Make with cfg as a raftapi.Make, for what builds nodes
// through the lab's API (the test catalogue, the cluster harness).
func Maker(cfg Config) raftapi.Make {
	return func(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, apply func(ApplyMsg)) (raftapi.Raft, error) {
		rf, err := Make(host, peers, me, persister, apply, cfg)
		if err != nil {
			return nil, err
		}
		return rf, nil
	}
}

// GetState returns the node's term and whether it believes it is the leader.
func (rf *Raft) GetState() (term int, isLeader bool) {
	return rf.term, rf.role == leader && !rf.dead
}

// Start proposes command for the log. If this node is the leader it returns
// the index the command will have if it is ever committed, the current term
// and true; it sends the command to the peers at once (with HeartbeatOnly,
// at the next heartbeat). Otherwise it returns -1, the current term and
// false, and does nothing.
func (rf *Raft) Start(command any) (index, term int, isLeader bool) {
	if rf.dead || rf.role != leader {
		return -1, rf.term, false
	}
	defer rf.flush()
	rf.log.append(Entry{Term: rf.term, Command: command})
	rf.dirty = true
	if len(rf.peers) == 1 {
		rf.advanceCommit()
	}
	for p := range rf.peers {
		if p != rf.me && rf.inflight[p] == 0 && !rf.cfg.HeartbeatOnly {
			rf.sendAppend(p)
		}
	}
	return rf.log.last(), rf.term, true
}

// OnLeadership asks the node to call fn when it becomes leader of a term
// (leading true) and when it stops leading that term (leading false), so
// that a service can answer the requests it was waiting to commit instead
// of polling GetState. Each call adds a listener (a service, a test's
// nemesis): every one hears every change, in the order they subscribed. fn
// runs inside the node's event; it must not call back into the node.
func (rf *Raft) OnLeadership(fn func(term int, leading bool)) {
	rf.onLeadership = append(rf.onLeadership, fn)
}

// Kill stops the node: its timers stop and it ignores everything after.
func (rf *Raft) Kill() {
	rf.dead = true
	rf.electionTimer.Stop()
	rf.heartbeatTimer.Stop()
}

// Killed reports whether Kill has been called.
func (rf *Raft) Killed() bool { return rf.dead }

func (rf *Raft) majority() int { return len(rf.peers)/2 + 1 }

func (rf *Raft) resetElectionTimer() {
	rf.electionTimer.Reset(rf.host.RandDuration(rf.cfg.ElectionMin, rf.cfg.ElectionMax))
}

// becomeFollower moves to term (not below the current one) as a follower.
func (rf *Raft) becomeFollower(term int) {
	if term > rf.term {
		rf.term, rf.votedFor, rf.leader = term, noVote, noVote
		rf.dirty = true
	}
	if rf.role == leader {
		if rf.cfg.bugs.noStepDown {
			return
		}
		rf.leader = noVote
		rf.heartbeatTimer.Stop()
		rf.resetElectionTimer()
		rf.role = follower
		rf.failReads()
		rf.notifyLeadership(rf.leadTerm, false)
	}
	rf.role = follower
}

// notifyLeadership tells the service about a change of leadership.
func (rf *Raft) notifyLeadership(term int, leading bool) {
	for _, fn := range rf.onLeadership {
		fn(term, leading)
	}
}

// call sends an RPC to peer, giving up after RPCTimeout if one is set.
// answer runs at most once; it must do nothing once the node is killed, and
// flush before it returns (guarded does both).
func (rf *Raft) call(peer int, method string, args, reply any, answer func(ok bool)) {
	if rf.cfg.RPCTimeout > 0 {
		answer = once(answer) // labrpc answers once; the timeout is a second source
	}
	rf.peers[peer].Call(method, args, reply, answer)
	if rf.cfg.RPCTimeout > 0 {
		rf.host.After(rf.cfg.RPCTimeout, func() { answer(false) })
	}
}

// guarded returns done as an answer for call: it runs only while the node
// is alive, and flushes after.
func (rf *Raft) guarded(done func(ok bool)) func(ok bool) {
	return func(ok bool) {
		if !rf.dead {
			done(ok)
			rf.flush()
		}
	}
}

// once returns f, guarded to run at most once.
func once(f func(ok bool)) func(ok bool) {
	ran := false
	return func(ok bool) {
		if !ran {
			ran = true
			f(ok)
		}
	}
}

// flush saves the persistent state if it changed, and schedules applying
// newly committed entries. Every entry point calls it before returning: a
// host can only die between events, so nothing this event sent can be
// seen before the state behind it is on disk.
func (rf *Raft) flush() {
	if rf.dirty {
		rf.dirty = false
		rf.persister.SaveNoCopy(rf.log.persisted(rf.encodeState(rf.trailer[:0])), rf.snapshot)
	}
	if !rf.applyTimer.Pending() && (rf.snapPending || rf.lastApplied < rf.applyLimit()) {
		rf.applyTimer.Reset(0)
	}
}

// applyLimit is the last index that may be applied; it is never past the
// log's last entry (commitIndex <= log.last() always).
func (rf *Raft) applyLimit() int {
	if rf.cfg.bugs.applyUncommitted {
		return rf.log.last()
	}
	return rf.commitIndex
}

// applyCommitted hands the service a pending snapshot, then every entry
// up to the commit index, in order.
func (rf *Raft) applyCommitted() {
	if rf.dead {
		return
	}
	if rf.snapPending {
		rf.snapPending = false
		rf.lastApplied = max(rf.lastApplied, rf.log.base)
		rf.apply(ApplyMsg{SnapshotValid: true, Snapshot: rf.snapshot, SnapshotTerm: rf.log.term(rf.log.base), SnapshotIndex: rf.log.base})
	}
	for !rf.dead && !rf.snapPending && rf.lastApplied < rf.applyLimit() {
		rf.lastApplied++
		e := rf.log.entry(rf.lastApplied)
		rf.apply(ApplyMsg{CommandValid: true, Command: e.Command, CommandIndex: rf.lastApplied, CommandTerm: e.Term})
	}
}
