package raft

// InstallSnapshotArgs carries the leader's whole snapshot to a follower
// that is missing entries the leader has compacted away.
type InstallSnapshotArgs struct {
	Term              int
	LeaderID          int
	LastIncludedIndex int
	LastIncludedTerm  int
	Data              []byte
}

// InstallSnapshotReply answers an InstallSnapshot.
type InstallSnapshotReply struct {
	Term int
}

// Snapshot tells the node that the service's state up to and including
// index is captured in snapshot, so the log up to index can go.
func (rf *Raft) Snapshot(index int, snapshot []byte) {
	if rf.dead || index <= rf.log.base || index > rf.lastApplied {
		return
	}
	defer rf.flush()
	rf.log.compact(index, rf.log.term(index))
	rf.setSnapshot(snapshot)
}

func (rf *Raft) sendSnapshot(p int) {
	if rf.inflight[p] != 0 {
		return
	}
	args := &InstallSnapshotArgs{Term: rf.term, LeaderID: rf.me, LastIncludedIndex: rf.log.base, LastIncludedTerm: rf.log.term(rf.log.base), Data: rf.snapshot}
	id := rf.track(p)
	reply := &InstallSnapshotReply{}
	sent := rf.host.Now()
	rf.call(p, "Raft.InstallSnapshot", args, reply, rf.guarded(func(ok bool) {
		if rf.inflight != nil && rf.inflight[p] == id {
			rf.inflight[p] = 0
		}
		if !ok {
			return
		}
		if reply.Term > rf.term {
			rf.becomeFollower(reply.Term)
			return
		}
		if rf.role != leader || rf.term != args.Term {
			return
		}
		rf.acked(p, sent)
		rf.matched(p, args.LastIncludedIndex)
		if rf.nextIndex[p] <= rf.log.last() {
			rf.sendAppend(p)
		}
	}))
}

// InstallSnapshot is the handler for the leader's InstallSnapshot.
func (rf *Raft) InstallSnapshot(args *InstallSnapshotArgs, reply *InstallSnapshotReply) {
	if rf.dead {
		return
	}
	defer rf.flush()
	if !rf.fromLeader(args.Term, args.LeaderID, &reply.Term) || args.LastIncludedIndex <= rf.commitIndex {
		return
	}
	rf.log.compact(args.LastIncludedIndex, args.LastIncludedTerm)
	rf.setSnapshot(args.Data)
	rf.commitIndex = args.LastIncludedIndex
	rf.snapPending = true
}
