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

// A Clerk is the client side of a service: it does one call at a time,
// sends it to the server it believes leads, and on a wrong-leader answer,
// a lost message or a timeout moves on to the next server and sends the
// same call again (with the same session, so that the service applies it
// at most once). The call's callback runs once, when a server answers.
type Clerk struct {
	*Router
	id      int64
	seq     int64
	calling string // the method of the call in progress, or ""
}

// MakeClerk returns a clerk on host talking to servers (at least one). Its
// client ID is drawn from its host's random stream.
func MakeClerk(host *sim.Host, servers []*labrpc.ClientEnd) *Clerk {
	if host == nil {
		panic("rsm: MakeClerk: a nil host")
	}
	if len(servers) == 0 {
		panic("rsm: MakeClerk: a clerk needs at least one server, got none")
	}
	return &Clerk{Router: MakeRouter(host, servers), id: host.Rand().Int64()}
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

// Call sends method with args until a server gives a reply (made by
// newReply) that wrongLeader does not reject, then calls done with it. It
// panics if the clerk has a call in progress.
func (ck *Clerk) Call(method string, args any, newReply func() any, wrongLeader func(reply any) bool, done func(reply any)) {
	ck.begin(method)
	ck.Router.Call(method, args, newReply, wrongLeader, ck.end(done))
}

// CallOnce is Router.CallOnce, one call at a time: it sends method with
// args once and calls done with the reply, or with nil if that try
// failed. It panics if the clerk has a call in progress.
func (ck *Clerk) CallOnce(method string, args any, newReply func() any, wrongLeader func(reply any) bool, done func(reply any)) {
	ck.begin(method)
	ck.Router.CallOnce(method, args, newReply, wrongLeader, ck.end(done))
}

// begin marks method in progress; it panics if another call is.
func (ck *Clerk) begin(method string) {
	if ck.calling != "" {
		panic(fmt.Sprintf("rsm: clerk %d: %s while %s is in progress; a clerk does one call at a time", ck.id, method, ck.calling))
	}
	ck.calling = method
}

// end returns done, marking the call over before it runs.
func (ck *Clerk) end(done func(reply any)) func(reply any) {
	return func(reply any) {
		ck.calling = ""
		done(reply)
	}
}
