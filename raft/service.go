package raft

import "github.com/replab/replab/labrpc"

// serviceType is Raft's RPC methods, found and checked once: a search
// builds a world, and its nodes' services, for every state it explores.
var serviceType = labrpc.TypeOf((*Raft)(nil))

// Service returns rf's RPC service ("Raft.AppendEntries" and the rest),
// with its handlers registered typed, so that the network calls them
// without reflection. labrpc.MakeService(rf) serves the same methods,
// more slowly.
func (rf *Raft) Service() *labrpc.Service {
	svc := serviceType.Service(rf)
	labrpc.Handle(svc, "AppendEntries", rf.AppendEntries)
	labrpc.Handle(svc, "RequestVote", rf.RequestVote)
	labrpc.Handle(svc, "InstallSnapshot", rf.InstallSnapshot)
	return svc
}
