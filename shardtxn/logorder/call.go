package logorder

import (
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// retryPause is how long a caller waits after a try that did not help
// before the next.
const retryPause = 10 * time.Millisecond

// maxAvoid bounds the doubling of a silent node's avoidance (unless twice
// the timeout is longer): a node back from the dead is asked again within
// 5 s.
const maxAvoid = 5 * time.Second

// nodes are the nodes a caller (a clerk, or a server fetching values)
// asks, by index, with what it has learned of them: a node that did not
// answer a try within the timeout (dead, cut off, or its answer lost) is
// avoided for twice the timeout, and for twice as long again each time it
// fails once more before it answers (up to maxAvoid), so that the caller
// does not wait out the timeout on a dead node again and again while
// another owner can answer. A node that answers it is far behind is
// avoided for twice the timeout.
type nodes struct {
	host    *sim.Host
	ends    []*labrpc.ClientEnd
	timeout time.Duration
	avoid   []time.Duration // the virtual time until which each is avoided
	strikes []int           // each one's failures since it last answered
}

func newNodes(host *sim.Host, ends []*labrpc.ClientEnd, timeout time.Duration) *nodes {
	return &nodes{host: host, ends: ends, timeout: timeout, avoid: make([]time.Duration, len(ends)), strikes: make([]int, len(ends))}
}

// pick returns one of among at random, of those not avoided if any is
// left.
func (n *nodes) pick(among []int) int {
	now := n.host.Now()
	var fresh []int
	for _, i := range among {
		if n.avoid[i] <= now {
			fresh = append(fresh, i)
		}
	}
	if len(fresh) == 0 {
		fresh = among
	}
	return fresh[n.host.Rand().IntN(len(fresh))]
}

// shun avoids node i, from now, for twice the timeout times two to the
// failures it had before this one, up to maxAvoid.
func (n *nodes) shun(i int) {
	limit := max(maxAvoid, 2*n.timeout)
	if n.timeout<<n.strikes[i] < limit {
		n.strikes[i]++
	}
	n.avoid[i] = n.host.Now() + min(n.timeout<<n.strikes[i], limit)
}

// ask sends method with args to a node of among (see pick), and again to
// the one it picks next, until accept takes a reply (made by newReply). A
// try that is lost, times out or is refused is followed by another after a
// short pause. Everything runs on the caller's host: if it dies, the
// asking ends.
func (n *nodes) ask(among []int, method string, args any, newReply func() any, accept func(reply any) bool) {
	var current *bool // the try under way; an answer to another is ignored
	var to int        // the node it asks
	var try func()
	timer := n.host.NewTimer(func() {
		n.shun(to)
		try()
	})
	try = func() {
		this := new(bool)
		current = this
		to = n.pick(among)
		reply := newReply()
		n.ends[to].Call(method, args, reply, func(ok bool) {
			if this != current {
				return // timed out already
			}
			timer.Stop()
			switch f, far := reply.(interface{ farBehind() bool }); {
			case !ok:
				n.shun(to)
			case far && f.farBehind():
				n.avoid[to] = n.host.Now() + 2*n.timeout // alive, but catching up
			default:
				n.strikes[to] = 0
			}
			if ok && accept(reply) {
				return
			}
			n.host.After(retryPause, try)
		})
		timer.Reset(n.timeout)
	}
	try()
}
