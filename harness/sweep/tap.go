package sweep

import (
	"time"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// A tap shows nemeses the messages between the replicas of a cluster's
// first group as they are sent, so that they can strike at a chosen
// moment: right after a server votes, say. The network has no hook for
// this but its delay rule, so a tap is one, put in force through the
// monkey (the fault log names it); it adds the delay that its delay rule,
// if any, returns.
type tap struct {
	replica map[*sim.Host]int // the replica of group 0 on each host
	watch   []func(m labrpc.Message, from, to int)
	delay   labrpc.DelayRule
}

// newTap puts a tap in force on c's network, as the delay rule called
// name, with delay as its delay rule (nil: none).
func newTap(c *cluster.Cluster, name string, delay labrpc.DelayRule) *tap {
	t := &tap{replica: map[*sim.Host]int{}, delay: delay}
	for i := range c.Replicas(0) {
		t.replica[c.Hosts()[c.HostOf(0, i)]] = i
	}
	must(c.Monkey().SetDelayRule(name, t.rule))
	return t
}

// rule is the tap as a delay rule: it shows each watcher a message
// between two replicas (from sends it: the server, for a reply), then
// returns the delay rule's delay.
func (t *tap) rule(m labrpc.Message) time.Duration {
	from, okFrom := t.replica[m.From]
	to, okTo := t.replica[m.To]
	if okFrom && okTo {
		for _, w := range t.watch {
			w(m, from, to)
		}
	}
	if t.delay == nil {
		return 0
	}
	return t.delay(m)
}
