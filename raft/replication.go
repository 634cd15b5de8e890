package raft

import "time"

// AppendEntriesArgs carries entries (none for a heartbeat) and the leader's
// commit index.
type AppendEntriesArgs struct {
	Term         int
	LeaderID     int
	PrevLogIndex int
	PrevLogTerm  int
	Entries      []Entry
	LeaderCommit int
}

// AppendEntriesReply answers an AppendEntries. On a mismatch it says where
// the follower's log diverges, so the leader can skip back a term at a time:
// XTerm is the term of the follower's entry at PrevLogIndex and XIndex the
// first index of that term; or, if it has no entry there, XTerm is -1 and
// XLen its log length.
type AppendEntriesReply struct {
	Term    int
	Success bool
	XTerm   int
	XIndex  int
	XLen    int
}

// heartbeatTick fires every Heartbeat on a leader.
func (rf *Raft) heartbeatTick() {
	defer rf.flush()
	if rf.role != leader {
		return
	}
	if rf.cfg.CheckQuorum && !rf.quorumActive() {
		rf.becomeFollower(rf.term)
		return
	}
	rf.broadcast()
}

// quorumActive reports whether a majority (counting the leader) has
// answered a message sent within the last ElectionMax.
func (rf *Raft) quorumActive() bool {
	now := rf.host.Now()
	return now-rf.leadSince < rf.cfg.ElectionMax || now-rf.quorumSince() < rf.cfg.ElectionMax
}

// broadcast sends AppendEntries to every peer and re-arms the heartbeat.
func (rf *Raft) broadcast() {
	for p := range rf.peers {
		if p != rf.me {
			rf.sendAppend(p)
		}
	}
	rf.heartbeatTimer.Reset(rf.cfg.Heartbeat)
}

// sendAppend sends peer what it is missing. At most one AppendEntries with
// entries is in flight per peer; while one is, entries pile up and go out
// together when it is answered, and heartbeats carry no entries and point
// at the last entry known to match.
func (rf *Raft) sendAppend(p int) {
	next := rf.nextIndex[p]
	if next <= rf.log.base && (rf.short[p] || !rf.cfg.OwnSnapshots) {
		rf.sendSnapshot(p)
		return
	}
	if next <= rf.log.base {
		// The peer may hold the entries the snapshot covers (a leader's
		// match is a lower bound, and a new leader's starts at 0): ask at
		// the base first, and send the snapshot only if the peer refuses.
		next = rf.log.base + 1
		rf.nextIndex[p] = next
	}
	prev := next - 1
	carry := rf.inflight[p] == 0 && next <= rf.log.last()
	if !carry && rf.inflight[p] != 0 {
		prev = max(rf.matchIndex[p], rf.log.base)
	}
	c := &appendCall{rf: rf, p: p, sent: rf.host.Now(), args: AppendEntriesArgs{Term: rf.term, LeaderID: rf.me, PrevLogIndex: prev, PrevLogTerm: rf.log.term(prev), LeaderCommit: rf.commitIndex}}
	if carry {
		hi := rf.log.last()
		if rf.cfg.MaxBatch > 0 {
			hi = min(hi, next+rf.cfg.MaxBatch-1)
		}
		if limit := rf.cfg.batchBytes(len(rf.peers) - 1); limit > 0 {
			hi = rf.log.within(next, hi, limit)
		}
		c.args.Entries = rf.log.slice(next, hi+1)
		rf.nextIndex[p] = hi + 1
		c.id = rf.track(p)
	}
	rf.call(p, "Raft.AppendEntries", &c.args, &c.reply, c.answered)
}

// An appendCall is one AppendEntries sent to peer p: what was sent, when,
// its place in the peer's pipeline (id, 0 for a heartbeat), and the reply,
// in one allocation.
type appendCall struct {
	rf    *Raft
	p, id int
	sent  time.Duration
	args  AppendEntriesArgs
	reply AppendEntriesReply
}

// answered is c's answer for call, as guarded would make it, without
// allocating a closure for every AppendEntries.
func (c *appendCall) answered(ok bool) {
	if rf := c.rf; !rf.dead {
		rf.appendAnswered(c, ok)
		rf.flush()
	}
}

func (rf *Raft) appendAnswered(c *appendCall, ok bool) {
	p, reply := c.p, &c.reply
	if ok && reply.Term > rf.term {
		rf.becomeFollower(reply.Term)
		return
	}
	if rf.role != leader || c.args.Term != rf.term {
		return
	}
	carried := c.id != 0 && rf.inflight[p] == c.id
	if carried {
		rf.inflight[p] = 0
	}
	if !ok {
		if carried {
			// The entries may not have arrived: resend them, but not what
			// the peer is known to hold (a stale reply reordered or
			// duplicated may have moved matchIndex past this call's
			// PrevLogIndex). Below the match, nextIndex could fall to the
			// log's base and send a snapshot the peer does not need, and
			// logorder's nodes cannot take another's: swarm-logorder's
			// seed 6429 restarted a node from its leader's snapshot.
			rf.nextIndex[p] = max(rf.matchIndex[p]+1, min(rf.nextIndex[p], c.args.PrevLogIndex+1))
		}
		return
	}
	rf.acked(p, c.sent)
	if reply.Success {
		rf.matched(p, c.args.PrevLogIndex+len(c.args.Entries))
	} else {
		rf.nextIndex[p] = max(rf.matchIndex[p]+1, rf.backtrack(reply))
		rf.short[p] = rf.short[p] || c.args.PrevLogIndex <= rf.log.base
		rf.inflight[p] = 0
	}
	more := rf.nextIndex[p] <= rf.log.last() && (!rf.cfg.HeartbeatOnly || !reply.Success)
	if rf.role == leader && rf.inflight[p] == 0 && more {
		rf.sendAppend(p)
	}
}

// matched records that peer p's log matches this leader's up to index.
func (rf *Raft) matched(p, index int) {
	if index > rf.matchIndex[p] {
		rf.matchIndex[p], rf.short[p] = index, false
		rf.advanceCommit()
	}
	rf.nextIndex[p] = max(rf.nextIndex[p], rf.matchIndex[p]+1)
}

// track marks a message to p that carries entries or a snapshot as in
// flight, and returns its ID.
func (rf *Raft) track(p int) int {
	rf.sends++
	rf.inflight[p] = rf.sends
	return rf.sends
}

// backtrack returns where to resend from after a follower's mismatch.
func (rf *Raft) backtrack(reply *AppendEntriesReply) int {
	if reply.XTerm == -1 {
		return reply.XLen
	}
	if i := rf.log.lastOfTerm(reply.XTerm); i != -1 {
		return i + 1
	}
	return reply.XIndex
}

// advanceCommit commits the highest index of the current term that a
// majority holds (earlier terms' entries commit with it: Figure 8).
func (rf *Raft) advanceCommit() {
	for n := rf.log.last(); n > rf.commitIndex; n-- {
		if rf.log.term(n) != rf.term && !rf.cfg.bugs.commitOldTerm {
			return
		}
		count := 1
		for p, m := range rf.matchIndex {
			if p != rf.me && m >= n {
				count++
			}
		}
		if count >= rf.majority() {
			rf.commitIndex = n
			return
		}
	}
}

// AppendEntries is the handler for the leader's AppendEntries.
func (rf *Raft) AppendEntries(args *AppendEntriesArgs, reply *AppendEntriesReply) {
	if rf.dead {
		return
	}
	defer rf.flush()
	if !rf.fromLeader(args.Term, args.LeaderID, &reply.Term) {
		return
	}
	prev := args.PrevLogIndex
	if prev > rf.log.last() {
		reply.XTerm, reply.XLen = -1, rf.log.last()+1
		return
	}
	if prev >= rf.log.base && rf.log.term(prev) != args.PrevLogTerm {
		reply.XTerm, reply.XIndex = rf.log.term(prev), rf.log.firstOfTerm(prev)
		return
	}
	entries, at := args.Entries, prev+1
	if at <= rf.log.base { // the snapshot already covers a prefix
		skip := min(rf.log.base+1-at, len(entries))
		entries, at = entries[skip:], at+skip
	}
	rf.merge(at, entries)
	reply.Success = true
	if last := prev + len(args.Entries); args.LeaderCommit > rf.commitIndex {
		rf.commitIndex = max(rf.commitIndex, min(args.LeaderCommit, last))
	}
}

// fromLeader does what every message from a leader starts with: it turns
// away a stale term, reporting the current one in replyTerm, and otherwise
// records that the leader, peer from, was heard. It reports whether to go
// on with the message.
func (rf *Raft) fromLeader(term, from int, replyTerm *int) bool {
	*replyTerm = rf.term
	if term < rf.term {
		return false
	}
	rf.heardFrom(term)
	if rf.role == follower {
		rf.leader = from
	}
	*replyTerm = rf.term
	return true
}

// heardFrom records a message from the leader of term. It ends any
// (pre-)election this node has under way: the replies still to come were
// asked for before the leader was heard, and counting them could elect this
// node inside the lease it is about to grant the leader (see the package
// doc).
func (rf *Raft) heardFrom(term int) {
	if term > rf.term || rf.role != follower {
		rf.becomeFollower(term)
	}
	if !rf.cfg.bugs.preVoteOutlivesLeader {
		rf.endRound()
	}
	rf.heardLeader = rf.host.Now()
	if rf.role == follower {
		rf.resetElectionTimer()
	}
}

// merge puts entries into the log from index at, cutting the log only
// where an entry conflicts: a stale AppendEntries must not drop entries a
// newer one added.
func (rf *Raft) merge(at int, entries []Entry) {
	for i, e := range entries {
		j := at + i
		if j > rf.log.last() {
			rf.log.append(entries[i:]...)
			rf.dirty = true
			break
		}
		if rf.log.term(j) != e.Term {
			rf.dirty = true
			if rf.cfg.bugs.keepConflicts {
				rf.log.set(j, e)
				continue
			}
			rf.log.truncate(j)
			rf.log.append(entries[i:]...)
			break
		}
	}
	if end := at + len(entries); rf.cfg.bugs.truncateStale && end <= rf.log.last() {
		rf.log.truncate(end)
		rf.dirty = true
	}
}
