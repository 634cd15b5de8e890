// Package kvraft is a linearizable, exactly-once key/value service
// replicated with raft, in the shape of the 6.5840 lab: clerks send Get,
// Put, Append and a conditional put on a version to the leader's KVServer,
// which submits each operation to Raft and answers once it is applied.
//
// It is a thin state machine on package rsm, which does the rest: waiting
// for commits, at-most-once execution of retried writes, snapshots, and
// reads through the log (the default), by ReadIndex, or under the leader's
// lease (safe only while clocks drift less than raft.Config.LeaseDrift).
// Everything runs inside a simulated world: clerks and servers are
// sans-IO, and every call completes through a callback.
package kvraft

import "fmt"

// Err is the outcome of an operation.
type Err string

// The outcomes.
const (
	OK             Err = "OK"
	ErrNoKey       Err = "ErrNoKey"
	ErrWrongLeader Err = "ErrWrongLeader"
	ErrVersion     Err = "ErrVersion" // a conditional put's version did not match
)

// OpKind names an operation.
type OpKind int

// The operations.
const (
	OpGet OpKind = iota
	OpPut
	OpAppend
	OpCPut
)

// String returns the operation's name.
func (k OpKind) String() string {
	switch k {
	case OpGet:
		return "Get"
	case OpPut:
		return "Put"
	case OpAppend:
		return "Append"
	case OpCPut:
		return "CPut"
	}
	return fmt.Sprintf("OpKind(%d)", int(k))
}

// GetArgs asks for a key's value.
type GetArgs struct {
	Key string
}

// GetReply carries a key's value and version (0 for a missing key).
type GetReply struct {
	Err     Err
	Value   string
	Version int64
}

// PutAppendArgs asks for a write: Put, Append, or CPut, which sets the
// value only if the key's version is Version.
type PutAppendArgs struct {
	Op       OpKind
	Key      string
	Value    string
	Version  int64
	ClientID int64
	Seq      int64
}

// PutAppendReply answers a write.
type PutAppendReply struct {
	Err Err
}
