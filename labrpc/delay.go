package labrpc

import (
	"fmt"
	"slices"
	"time"

	"github.com/replab/replab/sim"
)

// A Message describes a request or a reply as it is sent, for a DelayRule
// or a watcher (Watch).
type Message struct {
	Method   string    // "Service.Method"
	Args     any       // the request's arguments (for a reply too); do not modify
	IsReply  bool      // a reply on its way back, not a request
	From, To *sim.Host // sender and receiver (nil for a host-less end or server)
}

// A DelayRule returns extra delay for a message, on top of the network's
// own model: a way to aim slow links or reordering at chosen traffic (only
// election messages, say). It runs inside the world when the message is
// sent, so it may draw from the world's random numbers, and it must not
// return a negative delay.
type DelayRule func(m Message) time.Duration

// SetDelayRule installs rule for every message sent from now on; nil
// removes it. With a chaos.Monkey on the network, install it through the
// monkey instead (Monkey.SetDelayRule, or a fault.DelayRule fault naming
// it), so that the fault log shows which rule was in force when.
func (n *Network) SetDelayRule(rule DelayRule) { n.delayRule = rule }

// Watch has fn called with every message sent from now on (a request,
// or a reply on its way back), after the delay rule, until the returned
// stop is called. Any number of watchers may be on, beside a delay rule:
// a test or a nemesis watches for the moment to strike ("the coordinator
// leader sent PREPARE") while another rule delays traffic. A watcher runs
// inside the world as the message is sent, in the order watchers were
// added; it must not change the message, and to act on what it sees (a
// fault, say) it schedules the act (sim.World.After with 0) rather than
// doing it in the middle of a send.
func (n *Network) Watch(fn func(m Message)) (stop func()) {
	if fn == nil {
		panic("labrpc: Watch with a nil watcher")
	}
	w := &watcher{fn: fn}
	n.watchers = append(n.watchers, w)
	return func() {
		n.watchers = slices.DeleteFunc(n.watchers, func(x *watcher) bool { return x == w })
	}
}

// A watcher is one Watch's function; a pointer, so that stop finds it.
type watcher struct{ fn func(Message) }

// extraDelay applies the delay rule, if any, to a message of call c, and
// shows the message to the watchers.
func (n *Network) extraDelay(c *call, reply bool) time.Duration {
	if n.delayRule == nil && len(n.watchers) == 0 {
		return 0
	}
	m := Message{Method: c.svcMeth, Args: argsValue(c.frame.at, c.args).Interface(), IsReply: reply, From: c.end.host, To: c.srv.host}
	if reply {
		m.From, m.To = m.To, m.From
	}
	var d time.Duration
	if n.delayRule != nil {
		d = n.delayRule(m)
	}
	if d < 0 {
		panic(fmt.Sprintf("labrpc: delay rule returned %v for %s (reply %v): delays cannot be negative", d, m.Method, reply))
	}
	for _, w := range slices.Clone(n.watchers) {
		w.fn(m)
	}
	return d
}
