package raft

import "time"

// RequestVoteArgs asks for a vote, or with PreVote set, asks whether a vote
// would be granted in term Term without anyone changing state.
type RequestVoteArgs struct {
	Term         int
	CandidateID  int
	LastLogIndex int
	LastLogTerm  int
	PreVote      bool
}

// RequestVoteReply answers a RequestVote.
type RequestVoteReply struct {
	Term        int
	VoteGranted bool
}

// electionTimeout fires when a follower or candidate has heard from no
// leader for a while.
func (rf *Raft) electionTimeout() {
	defer rf.flush()
	if rf.role == leader {
		return
	}
	rf.resetElectionTimer()
	rf.campaign(rf.cfg.PreVote)
}

// campaign starts a pre-election (asking, in term+1, without changing
// anything) or an election (bumping the term and voting for itself).
func (rf *Raft) campaign(pre bool) {
	rf.endRound()
	round := rf.round
	term := rf.term + 1
	if !pre {
		rf.term, rf.votedFor, rf.role, rf.leader = term, rf.me, candidate, noVote
		rf.dirty = true
	}
	rf.votes = 1
	if rf.votes >= rf.majority() {
		rf.won(pre)
		return
	}
	args := &RequestVoteArgs{Term: term, CandidateID: rf.me, LastLogIndex: rf.log.last(), LastLogTerm: rf.log.lastTerm(), PreVote: pre}
	for p := range rf.peers {
		if p == rf.me {
			continue
		}
		reply := &RequestVoteReply{}
		rf.call(p, "Raft.RequestVote", args, reply, rf.guarded(func(ok bool) {
			if !ok || round != rf.round {
				return
			}
			if reply.Term > rf.term && !reply.VoteGranted {
				rf.becomeFollower(reply.Term)
				return
			}
			// A pre-vote counts while nothing has changed since it was
			// asked for; a vote, while this node is still the candidate.
			current := rf.term == term-1 && rf.role != leader
			if !pre {
				current = rf.term == term && rf.role == candidate
			}
			if !reply.VoteGranted || !current {
				return
			}
			rf.votes++
			if rf.votes == rf.majority() {
				rf.won(pre)
			}
		}))
	}
}

// endRound abandons the (pre-)election under way, if any: replies to it
// will be ignored.
func (rf *Raft) endRound() { rf.round++ }

// won moves on from a won pre-election to the election, or from a won
// election to leadership. A node that has heard from a leader since it
// asked for pre-votes has abandoned the round (see heardFrom); one that
// still may be inside a lease it granted does not start an election.
func (rf *Raft) won(pre bool) {
	switch {
	case !pre:
		rf.becomeLeader()
	case rf.leaseBound() && !rf.cfg.bugs.preVoteOutlivesLeader:
		// Inside a lease (see the package doc): wait for the next timeout.
	default:
		rf.campaign(false)
	}
}

// RequestVote is the handler for vote and pre-vote requests.
func (rf *Raft) RequestVote(args *RequestVoteArgs, reply *RequestVoteReply) {
	if rf.dead {
		return
	}
	defer rf.flush()
	reply.Term = rf.term
	if args.Term < rf.term {
		return
	}
	// The leader's lease: while a node hears from a leader, it refuses to
	// help anyone depose it (Raft thesis §4.2.3; see the package doc).
	if args.Term > rf.term && rf.leaseBound() {
		return
	}
	upToDate := args.LastLogTerm > rf.log.lastTerm() ||
		(args.LastLogTerm == rf.log.lastTerm() && args.LastLogIndex >= rf.log.last())
	if rf.cfg.bugs.voteWithoutLogCheck {
		upToDate = true
	}
	if args.PreVote {
		reply.VoteGranted = args.Term > rf.term && upToDate
		return
	}
	if args.Term > rf.term {
		rf.becomeFollower(args.Term)
		reply.Term = rf.term
	}
	if (rf.votedFor == noVote || rf.votedFor == args.CandidateID) && upToDate && rf.role == follower {
		reply.VoteGranted = true
		rf.votedFor = args.CandidateID
		rf.dirty = true
		rf.resetElectionTimer()
	}
}

// leaseBound reports whether this node may still be inside a lease it
// granted a leader by answering it, or holds one as leader: with
// CheckQuorum on, it leads, or it heard from a leader (or started) less
// than ElectionMin ago on its own clock. Counting
// a start as hearing from a leader keeps a lease safe when a follower that
// acknowledged it crashes and comes straight back: it has forgotten whom it
// heard, so it waits as if it had just heard the leader.
func (rf *Raft) leaseBound() bool {
	return rf.cfg.CheckQuorum && (rf.role == leader || rf.host.Now()-rf.heardLeader < rf.cfg.ElectionMin)
}

func (rf *Raft) becomeLeader() {
	rf.role, rf.leader = leader, rf.me
	rf.electionTimer.Stop()
	n := len(rf.peers)
	rf.nextIndex, rf.matchIndex = make([]int, n), make([]int, n)
	rf.inflight, rf.ackSent, rf.short = make([]int, n), make([]time.Duration, n), make([]bool, n)
	rf.leadSince, rf.leadTerm = rf.host.Now(), rf.term
	for p := range rf.peers {
		rf.nextIndex[p] = rf.log.last() + 1
		rf.ackSent[p] = never
	}
	rf.notifyLeadership(rf.term, true)
	rf.broadcast()
}
