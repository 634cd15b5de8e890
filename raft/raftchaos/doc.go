// Package raftchaos runs bare Raft groups on the testbed (harness/testbed),
// as txntest runs shardtxn's: a Group is a run of one Raft group whose
// client gives commands to whichever node thinks it leads and whose check
// is the lab's (rafttest.Logs: every index holds one command on every
// node; after healing, every node commits a fresh command), and a Nemesis
// strikes at the moments a tap on the group's messages shows (a new
// leader's first entries, a vote just cast), each kind as often as drawn.
//
// It stands beside rafttest rather than in it: rafttest is copied into the
// lab's student kits, which carry no testbed. It knows the messages of
// package raft (RaftMessages); another Raft's nemesis is given its own
// Messages.
package raftchaos
