package raft

import (
	"math"
	"slices"
	"time"
)

// never is an acknowledgement time before anything.
const never = time.Duration(math.MinInt64 / 2)

// A pendingRead is a ReadIndex request waiting for a majority to
// acknowledge a message sent after it was made.
type pendingRead struct {
	at    time.Duration // when it was asked (leader's clock)
	index int
	done  func(index int, ok bool)
}

// ReadIndex lets a service serve a linearizable read without writing to the
// log. If this node leads and has committed an entry of its term, it
// records the commit index, sends a heartbeat round, and returns true; once
// a majority has answered a message sent after the call, done(index, true)
// says that a read served after applying up to index is linearizable. If the
// node loses leadership first, done(0, false). If ReadIndex returns false,
// done is never called and the read must go through the log.
func (rf *Raft) ReadIndex(done func(index int, ok bool)) bool {
	if !rf.readyToRead() {
		return false
	}
	defer rf.flush()
	rf.reads = append(rf.reads, pendingRead{at: rf.host.Now(), index: rf.commitIndex, done: done})
	if len(rf.peers) == 1 {
		rf.confirmReads()
	} else {
		rf.broadcast()
	}
	return true
}

// LeaseRead reports whether this leader may serve a read from its own state
// without asking anyone, because it holds a lease: a majority acknowledged
// a message sent less than LeaseDuration ago, so none of them will help
// elect another leader before the lease ends. If so it returns the index a
// read must be served at or after. The lease is only as safe as the bound on
// clock drift (see Config.LeaseDrift).
func (rf *Raft) LeaseRead() (index int, ok bool) {
	if !rf.readyToRead() || !rf.cfg.CheckQuorum {
		return 0, false
	}
	if rf.host.Now()-rf.quorumSince() >= rf.cfg.LeaseDuration() {
		return 0, false
	}
	return rf.commitIndex, true
}

// readyToRead reports whether this node leads and knows the latest commit:
// it has committed an entry of its own term.
func (rf *Raft) readyToRead() bool {
	return !rf.dead && rf.role == leader && rf.log.term(rf.commitIndex) == rf.term
}

// acked records that peer p answered a message sent at sent, as leader.
func (rf *Raft) acked(p int, sent time.Duration) {
	rf.ackSent[p] = max(rf.ackSent[p], sent)
	rf.confirmReads()
}

// quorumSince returns the send time of the latest message such that a
// majority (counting this node, at now) has answered it or a later one.
func (rf *Raft) quorumSince() time.Duration {
	times := make([]time.Duration, 0, len(rf.peers))
	for p, t := range rf.ackSent {
		if p == rf.me {
			t = rf.host.Now()
		}
		times = append(times, t)
	}
	slices.Sort(times)
	return times[len(times)-rf.majority()]
}

// confirmReads answers the ReadIndex requests a majority has confirmed.
func (rf *Raft) confirmReads() {
	if len(rf.reads) == 0 {
		return
	}
	q := rf.quorumSince()
	k := 0
	for k < len(rf.reads) && rf.reads[k].at <= q {
		k++
	}
	done := rf.reads[:k]
	rf.reads = rf.reads[k:]
	for _, r := range done {
		r.done(r.index, true)
	}
}

// failReads answers every pending ReadIndex request with a failure.
func (rf *Raft) failReads() {
	reads := rf.reads
	rf.reads = nil
	for _, r := range reads {
		r.done(0, false)
	}
}
