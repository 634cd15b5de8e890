package kvraft

import (
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A Clerk is a client of the service (see rsm.Clerk for how it finds the
// leader and retries). It does one operation at a time; each operation's
// callback runs once, when the operation is done.
type Clerk struct {
	ck *rsm.Clerk
}

// MakeClerk returns a clerk on host talking to servers (at least one). Its
// client ID is drawn from the world's random number generator.
func MakeClerk(host *sim.Host, servers []*labrpc.ClientEnd) *Clerk {
	if host == nil {
		panic("kvraft: MakeClerk: a nil host")
	}
	return &Clerk{ck: rsm.MakeClerk(host, servers)}
}

// ID returns the clerk's client ID.
func (ck *Clerk) ID() int64 { return ck.ck.ID() }

// Host returns the clerk's host.
func (ck *Clerk) Host() *sim.Host { return ck.ck.Host() }

// SetTimeout sets how long the clerk waits for a server's answer before it
// tries the next one (rsm.DefaultTimeout unless set).
func (ck *Clerk) SetTimeout(d time.Duration) { ck.ck.SetTimeout(d) }

// Get fetches key's value and version ("" and 0 if the key is missing).
func (ck *Clerk) Get(key string, done func(value string, version int64)) {
	ck.ck.Call("KVServer.Get", &GetArgs{Key: key},
		func() any { return &GetReply{} },
		func(r any) bool { return r.(*GetReply).Err == ErrWrongLeader },
		func(r any) { done(r.(*GetReply).Value, r.(*GetReply).Version) })
}

// Put sets key to value.
func (ck *Clerk) Put(key, value string, done func()) {
	ck.write(OpPut, key, value, 0, func(Err) { done() })
}

// Append appends value to key's value.
func (ck *Clerk) Append(key, value string, done func()) {
	ck.write(OpAppend, key, value, 0, func(Err) { done() })
}

// CPut sets key to value if the key's version is version (0 for a missing
// key), and reports whether it did.
func (ck *Clerk) CPut(key, value string, version int64, done func(ok bool)) {
	ck.write(OpCPut, key, value, version, func(err Err) { done(err == OK) })
}

func (ck *Clerk) write(kind OpKind, key, value string, version int64, done func(Err)) {
	sess := ck.ck.NextSession()
	ck.ck.Call("KVServer.PutAppend", &PutAppendArgs{Op: kind, Key: key, Value: value, Version: version, ClientID: sess.Client, Seq: sess.Seq},
		func() any { return &PutAppendReply{} },
		func(r any) bool { return r.(*PutAppendReply).Err == ErrWrongLeader },
		func(r any) { done(r.(*PutAppendReply).Err) })
}
