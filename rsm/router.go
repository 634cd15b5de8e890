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
//
// That is paper 000's leader discovery. Told of a directory (Discover), a
// Router instead asks it for the leader, first and whenever the server it
// tried fails it: paper 003's replica manager.
type Router struct {
	host    *sim.Host
	servers []*labrpc.ClientEnd
	leader  int
	timeout time.Duration

	listing Listing // the directory to ask, if any
	known   bool    // the directory's answer, leader, still holds
	term    int     // the term the directory gave for leader

	backoff, maxBackoff time.Duration // SetBackoff's; zero: a fixed roundPause
	late                bool          // TakeLateAnswers's
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

// TakeLateAnswers makes the router take the answer of a try that timed
// out, if it comes while the call is still under way, as the call's: the
// first answer a server gives that is not a wrong leader's ends the call,
// whichever try it answers. Without it, such an answer is dropped, and
// the call ends only with an answer to the try under way when it comes:
// a call whose servers take about as long as the timeout to answer (a
// commit on a lossy network) is answered only by luck, and one that a
// server answers on purpose later than the timeout (it holds the answer
// until it can give it, as a lock service holds a queued acquire's) by a
// later try alone. For calls that a server may act on more than once (as
// Call's retries are).
func (r *Router) TakeLateAnswers() { r.late = true }

// Redirect makes server i the one the next tries go to first: the leader a
// server's answer named.
func (r *Router) Redirect(i int) {
	if i >= 0 && i < len(r.servers) {
		r.leader = i
	}
}

// Discover makes the router find the leader through l's directory: it
// asks the directory before its first call and after each try that
// fails, and sends the call to the server named there. A directory that
// names again the server that just failed, in the same term, may have
// been told nothing new yet (or the failure was a lost message): the
// router pauses before it tries that server again.
func (r *Router) Discover(l Listing) {
	if l.Dir == nil {
		panic("rsm: Discover: a listing with no directory end")
	}
	r.listing, r.known = l, false
}

// A routed is one call of a Router.
type routed struct {
	r           *Router
	method      string
	args        any
	newReply    func() any
	wrongLeader func(reply any) bool
	done        func(reply any, sent time.Duration)
	attempt     int  // bumped per try; late answers to old tries are ignored (unless the router takes them)
	over        bool // the call has ended: answered, given up or cancelled
	once        bool // CallOnce's: the first try that fails ends the call
	sent        bool // a try has been sent (not only the directory asked)
	tries       int
	pauses      int
	to          int           // the server of the current try
	at          time.Duration // when the current try was sent, on the host's clock
	timer       *sim.Timer
}

// Call sends method with args until a server gives a reply (made by
// newReply) that wrongLeader does not reject, then calls done with it. It
// returns cancel, which ends the call: it sends nothing more, and done is
// not called (an answer on its way is dropped).
func (r *Router) Call(method string, args any, newReply func() any, wrongLeader func(reply any) bool, done func(reply any)) (cancel func()) {
	return r.CallTimed(method, args, newReply, wrongLeader, func(reply any, _ time.Duration) { done(reply) })
}

// CallTimed is Call, with done told as well when the try it answers was
// sent, on the router's host's clock: no earlier than the call began, and
// no more than the timeout before the answer (unless the router takes
// late answers), however many tries came before. A server acts on a try
// no sooner than it was sent, so a term the caller counts from then (a
// lease renewed) ends no later than one the server counts from its act,
// where one counted from the call's beginning may have run out while the
// tries before went unanswered.
func (r *Router) CallTimed(method string, args any, newReply func() any, wrongLeader func(reply any) bool, done func(reply any, sent time.Duration)) (cancel func()) {
	return r.start(&routed{r: r, method: method, args: args, newReply: newReply, wrongLeader: wrongLeader, done: done, to: r.leader})
}

// CallOnce sends method with args once, to the server the router believes
// leads (asking the directory first if it has one and knows no leader),
// and calls done with the reply, or with nil if the try failed: a
// wrong-leader answer, a lost message, no answer within the timeout. It
// never sends the call again: the caller cannot tell whether the server
// acted on it. After a failure the router forgets the leader, so the next
// call asks the directory (or tries the next server). That is a client
// that does not retry, as paper 003's did; asking the directory is not a
// try, and is repeated until it names a server. It returns cancel, as
// Call does.
func (r *Router) CallOnce(method string, args any, newReply func() any, wrongLeader func(reply any) bool, done func(reply any)) (cancel func()) {
	return r.start(&routed{r: r, method: method, args: args, newReply: newReply, wrongLeader: wrongLeader, done: func(reply any, _ time.Duration) { done(reply) }, to: r.leader, once: true})
}

// start starts call c and returns its cancel.
func (r *Router) start(c *routed) (cancel func()) {
	c.timer = r.host.NewTimer(c.retry)
	if r.listing.Dir != nil && !r.known {
		c.lookup(-1)
	} else {
		c.try()
	}
	return func() {
		c.over = true
		c.attempt++
		c.timer.Stop()
	}
}

// try sends the call to the server believed to lead.
func (c *routed) try() {
	c.sent, c.at = true, c.r.host.Now()
	c.attempt++
	attempt, to, at := c.attempt, c.to, c.at
	reply := c.newReply()
	c.r.servers[to].Call(c.method, c.args, reply, func(ok bool) {
		current := attempt == c.attempt
		if !current && (!c.r.late || c.over) {
			return // this try timed out; another is under way, or the call is over
		}
		if ok && !c.wrongLeader(reply) {
			c.over = true
			c.attempt++
			c.timer.Stop()
			c.r.leader = to
			c.done(reply, at)
			return
		}
		if current {
			c.retry()
		}
	})
	c.timer.Reset(c.r.timeout)
}

// retry asks the directory, if the router has one, or else moves on to
// the next server, pausing after each full round of servers that could not
// help.
func (c *routed) retry() {
	c.attempt++
	c.timer.Stop()
	if c.once && c.sent {
		c.giveUp()
		return
	}
	if c.r.listing.Dir != nil {
		if c.to == c.r.leader {
			c.r.known = false
		}
		c.lookup(c.to)
		return
	}
	if c.to == c.r.leader {
		c.r.leader = (c.r.leader + 1) % len(c.r.servers)
	}
	c.to = c.r.leader
	c.tries++
	if c.tries%len(c.r.servers) != 0 {
		c.try()
		return
	}
	c.pause(c.try)
}

// giveUp ends a CallOnce whose try failed: the router forgets the server
// it tried as leader, and done gets nil.
func (c *routed) giveUp() {
	c.over = true
	if c.to == c.r.leader {
		c.r.known = false
		if c.r.listing.Dir == nil {
			c.r.leader = (c.r.leader + 1) % len(c.r.servers)
		}
	}
	c.done(nil, c.at)
}

// lookup asks the directory who leads, after failed (-1: none) failed
// the call, and tries the server it names; with no answer, it asks again
// after a pause.
func (c *routed) lookup(failed int) {
	c.attempt++
	attempt := c.attempt
	reply := &LookupReply{}
	c.r.listing.Dir.Call("Directory.Lookup", &LookupArgs{Group: c.r.listing.Group}, reply, func(ok bool) {
		if attempt != c.attempt {
			return // this lookup timed out; another is under way
		}
		c.attempt++
		c.timer.Stop()
		if !ok || !reply.Known || reply.Server < 0 || reply.Server >= len(c.r.servers) {
			c.pause(func() { c.lookup(failed) })
			return
		}
		stale := reply.Server == failed && reply.Term <= c.r.term
		c.r.leader, c.r.term, c.r.known = reply.Server, reply.Term, true
		c.to = reply.Server
		if stale {
			c.pause(c.try)
			return
		}
		c.try()
	})
	c.timer.Reset(c.r.timeout)
}

// pause runs then after a pause (roundPause, or the backoff's next), unless
// the call moved on meanwhile.
func (c *routed) pause(then func()) {
	attempt := c.attempt
	c.pauses++
	c.r.host.After(c.r.pauseFor(c.pauses), func() {
		if attempt == c.attempt {
			then()
		}
	})
}
