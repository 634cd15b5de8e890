package rsm

import (
	"fmt"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// DefaultTimeout is how long a clerk waits, by default, for a server's
// answer before it tries the next one.
const DefaultTimeout = time.Second

// roundPause is how long a clerk waits after a whole round of servers
// could not help, so that an election has time to finish.
const roundPause = 10 * time.Millisecond

// A Clerk is the client side of a service: it does one call at a time,
// sends it to the server it believes leads, and on a wrong-leader answer,
// a lost message or a timeout moves on to the next server and sends the
// same call again (with the same session, so that the service applies it
// at most once). The call's callback runs once, when a server answers.
type Clerk struct {
	host    *sim.Host
	servers []*labrpc.ClientEnd
	id      int64
	seq     int64
	leader  int
	timeout time.Duration

	call    *call // the call in progress, or nil
	attempt int   // bumped per try; late answers to old tries are ignored
	tries   int   // tries of the current call
	timer   *sim.Timer
}

// A call is one request of a clerk.
type call struct {
	method      string
	args        any
	newReply    func() any
	wrongLeader func(reply any) bool
	done        func(reply any)
}

// MakeClerk returns a clerk on host talking to servers (at least one). Its
// client ID is drawn from the world's random number generator.
func MakeClerk(host *sim.Host, servers []*labrpc.ClientEnd) *Clerk {
	if len(servers) == 0 {
		panic("rsm: MakeClerk: a clerk needs at least one server, got none")
	}
	ck := &Clerk{host: host, servers: servers, id: host.World().Rand().Int64(), timeout: DefaultTimeout}
	ck.timer = host.NewTimer(ck.retry)
	return ck
}

// Host returns the clerk's host.
func (ck *Clerk) Host() *sim.Host { return ck.host }

// ID returns the clerk's client ID.
func (ck *Clerk) ID() int64 { return ck.id }

// NextSession returns the session for the clerk's next request.
func (ck *Clerk) NextSession() Session {
	ck.seq++
	return Session{Client: ck.id, Seq: ck.seq}
}

// SetTimeout sets how long the clerk waits for a server's answer before it
// tries the next one (DefaultTimeout unless set). It panics if d is not
// positive.
func (ck *Clerk) SetTimeout(d time.Duration) {
	if d <= 0 {
		panic(fmt.Sprintf("rsm: clerk timeout %v is not positive", d))
	}
	ck.timeout = d
}

// Call sends method with args until a server gives a reply (made by
// newReply) that wrongLeader does not reject, then calls done with it. It
// panics if the clerk has a call in progress.
func (ck *Clerk) Call(method string, args any, newReply func() any, wrongLeader func(reply any) bool, done func(reply any)) {
	if ck.call != nil {
		panic(fmt.Sprintf("rsm: clerk %d: %s while %s is in progress; a clerk does one call at a time", ck.id, method, ck.call.method))
	}
	ck.call, ck.tries = &call{method: method, args: args, newReply: newReply, wrongLeader: wrongLeader, done: done}, 0
	ck.try()
}

// try sends the current call to the server believed to lead.
func (ck *Clerk) try() {
	ck.attempt++
	attempt, c := ck.attempt, ck.call
	reply := c.newReply()
	ck.servers[ck.leader].Call(c.method, c.args, reply, func(ok bool) {
		if attempt != ck.attempt {
			return // this try timed out; another is under way
		}
		if ok && !c.wrongLeader(reply) {
			ck.timer.Stop()
			ck.call = nil
			c.done(reply)
			return
		}
		ck.retry()
	})
	ck.timer.Reset(ck.timeout)
}

// retry moves on to the next server, pausing after each full round of
// servers that could not help.
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
	ck.host.After(roundPause, func() {
		if attempt == ck.attempt {
			ck.try()
		}
	})
}
