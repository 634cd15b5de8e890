package kvraft

import (
	"fmt"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// ClerkTimeout is how long a clerk waits, by default, for a server's
// answer before it tries the next one.
const ClerkTimeout = time.Second

// A Clerk is a client of the service. It does one operation at a time: it
// sends it to the server it believes leads, and on a wrong-leader answer,
// no reply or a timeout, tries the next, with the same sequence number so
// that the service applies the operation at most once. Each operation's
// callback runs once, when the operation is done.
type Clerk struct {
	host    *sim.Host
	servers []*labrpc.ClientEnd
	id      int64
	seq     int64
	leader  int

	req     *request // the operation in progress, or nil
	attempt int      // bumped per try; late answers to old tries are ignored
	tries   int      // tries of the current operation
	timer   *sim.Timer
	timeout time.Duration
}

// request is an operation in progress.
type request struct {
	method string
	args   any
	reply  func() any          // a fresh reply
	errOf  func(reply any) Err // the reply's outcome
	finish func(reply any)
}

// MakeClerk returns a clerk on host talking to servers (at least one). Its
// client ID is drawn from the world's random number generator.
func MakeClerk(host *sim.Host, servers []*labrpc.ClientEnd) *Clerk {
	if len(servers) == 0 {
		panic("kvraft: MakeClerk: a clerk needs at least one server, got none")
	}
	ck := &Clerk{host: host, servers: servers, id: host.World().Rand().Int64(), timeout: ClerkTimeout}
	ck.timer = host.NewTimer(ck.timedOut)
	return ck
}

// SetTimeout sets how long the clerk waits for a server's answer before it
// tries the next one (ClerkTimeout by default). It panics if d is not
// positive.
func (ck *Clerk) SetTimeout(d time.Duration) {
	if d <= 0 {
		panic(fmt.Sprintf("kvraft: clerk timeout %v is not positive", d))
	}
	ck.timeout = d
}

// ID returns the clerk's client ID.
func (ck *Clerk) ID() int64 { return ck.id }

// Get fetches key's value and version ("" and 0 if the key is missing).
func (ck *Clerk) Get(key string, done func(value string, version int64)) {
	ck.seq++
	ck.start(&request{
		method: "KVServer.Get",
		args:   &GetArgs{Key: key, ClientID: ck.id, Seq: ck.seq},
		reply:  func() any { return &GetReply{} },
		errOf:  func(r any) Err { return r.(*GetReply).Err },
		finish: func(r any) { done(r.(*GetReply).Value, r.(*GetReply).Version) },
	})
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
	ck.seq++
	ck.start(&request{
		method: "KVServer.PutAppend",
		args:   &PutAppendArgs{Op: kind, Key: key, Value: value, Version: version, ClientID: ck.id, Seq: ck.seq},
		reply:  func() any { return &PutAppendReply{} },
		errOf:  func(r any) Err { return r.(*PutAppendReply).Err },
		finish: func(r any) { done(r.(*PutAppendReply).Err) },
	})
}

func (ck *Clerk) start(req *request) {
	if ck.req != nil {
		panic(fmt.Sprintf("kvraft: clerk %d: %s while %s is in progress; a clerk does one operation at a time", ck.id, req.method, ck.req.method))
	}
	ck.req, ck.tries = req, 0
	ck.try()
}

// try sends the current operation to the server believed to lead.
func (ck *Clerk) try() {
	ck.attempt++
	attempt, req := ck.attempt, ck.req
	reply := req.reply()
	ck.servers[ck.leader].Call(req.method, req.args, reply, func(ok bool) {
		if attempt != ck.attempt {
			return // this try timed out; another is under way
		}
		if ok && req.errOf(reply) != ErrWrongLeader {
			ck.timer.Stop()
			ck.req = nil
			req.finish(reply)
			return
		}
		ck.retry()
	})
	ck.timer.Reset(ck.timeout)
}

func (ck *Clerk) timedOut() { ck.retry() }

// retry moves on to the next server, pausing after each full round of
// servers that could not help, so that an election has time to finish.
func (ck *Clerk) retry() {
	ck.attempt++
	ck.timer.Stop()
	ck.leader = (ck.leader + 1) % len(ck.servers)
	ck.tries++
	if ck.tries%len(ck.servers) != 0 {
		ck.try()
		return
	}
	attempt := ck.attempt
	ck.host.After(10*time.Millisecond, func() {
		if attempt == ck.attempt {
			ck.try()
		}
	})
}
