package rsm

import (
	"fmt"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// roundPause is how long a call waits after a whole round of servers could
// not help, so that an election has time to finish.
const roundPause = 10 * time.Millisecond

// A Router sends calls to a group of servers, each to the server it
// believes leads, and on a wrong-leader answer, a lost message or a
// timeout moves on to the next server and sends the call again. Calls are
// independent: any number may be under way at once, so a Router suits
// requests a service makes idempotent itself (a coordinator's prepares and
// commits, keyed by transaction); a Clerk adds sessions on top, one call at
// a time.
type Router struct {
	host    *sim.Host
	servers []*labrpc.ClientEnd
	leader  int
	timeout time.Duration
}

// MakeRouter returns a router on host to servers (at least one).
func MakeRouter(host *sim.Host, servers []*labrpc.ClientEnd) *Router {
	if host == nil {
		panic("rsm: MakeRouter: a nil host")
	}
	if len(servers) == 0 {
		panic("rsm: MakeRouter: a router needs at least one server, got none")
	}
	return &Router{host: host, servers: servers, timeout: DefaultTimeout}
}

// SetTimeout sets how long a call waits for a server's answer before it
// tries the next one (DefaultTimeout unless set). It panics if d is not
// positive.
func (r *Router) SetTimeout(d time.Duration) {
	if d <= 0 {
		panic(fmt.Sprintf("rsm: clerk timeout %v is not positive", d))
	}
	r.timeout = d
}

// Redirect makes server i the one the next tries go to first: the leader a
// server's answer named.
func (r *Router) Redirect(i int) {
	if i >= 0 && i < len(r.servers) {
		r.leader = i
	}
}

// A routed is one call of a Router.
type routed struct {
	r           *Router
	method      string
	args        any
	newReply    func() any
	wrongLeader func(reply any) bool
	done        func(reply any)
	attempt     int // bumped per try; late answers to old tries are ignored
	tries       int
	to          int // the server of the current try
	timer       *sim.Timer
}

// Call sends method with args until a server gives a reply (made by
// newReply) that wrongLeader does not reject, then calls done with it.
func (r *Router) Call(method string, args any, newReply func() any, wrongLeader func(reply any) bool, done func(reply any)) {
	c := &routed{r: r, method: method, args: args, newReply: newReply, wrongLeader: wrongLeader, done: done, to: r.leader}
	c.timer = r.host.NewTimer(c.retry)
	c.try()
}

// try sends the call to the server believed to lead.
func (c *routed) try() {
	c.attempt++
	attempt := c.attempt
	reply := c.newReply()
	c.r.servers[c.to].Call(c.method, c.args, reply, func(ok bool) {
		if attempt != c.attempt {
			return // this try timed out; another is under way
		}
		if ok && !c.wrongLeader(reply) {
			c.attempt++
			c.timer.Stop()
			c.r.leader = c.to
			c.done(reply)
			return
		}
		c.retry()
	})
	c.timer.Reset(c.r.timeout)
}

// retry moves on to the next server, pausing after each full round of
// servers that could not help.
func (c *routed) retry() {
	c.attempt++
	c.timer.Stop()
	if c.to == c.r.leader {
		c.r.leader = (c.r.leader + 1) % len(c.r.servers)
	}
	c.to = c.r.leader
	c.tries++
	if c.tries%len(c.r.servers) != 0 {
		c.try()
		return
	}
	attempt := c.attempt
	c.r.host.After(roundPause, func() {
		if attempt == c.attempt {
			c.try()
		}
	})
}
