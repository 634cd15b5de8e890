package labrpc

import (
	"fmt"
	"time"

	"github.com/replab/replab/sim"
)

// A Message describes a request or a reply as it is sent, for a DelayRule.
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

// extraDelay applies the delay rule, if any, to a message of call c.
func (n *Network) extraDelay(c *call, reply bool) time.Duration {
	if n.delayRule == nil {
		return 0
	}
	m := Message{Method: c.svcMeth, Args: argsValue(c.frame.at, c.args).Interface(), IsReply: reply, From: c.end.host, To: c.srv.host}
	if reply {
		m.From, m.To = m.To, m.From
	}
	d := n.delayRule(m)
	if d < 0 {
		panic(fmt.Sprintf("labrpc: delay rule returned %v for %s (reply %v): delays cannot be negative", d, m.Method, reply))
	}
	return d
}
