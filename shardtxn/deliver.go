package shardtxn

import "time"

// An outbox holds back a coordinator leader's decisions for one shard
// group while the group does not answer: a group that receives but whose
// answers are lost (a one-way cut) would otherwise collect one call per
// decision, each retried for as long as the cut lasts, so that the calls,
// and the messages a second, grow with every transaction decided. Held
// back, they stay as many as were in flight when the group fell silent,
// which the clients' concurrency bounds; they go as soon as it answers
// one.
type outbox struct {
	flying int           // decisions sent and not yet acknowledged
	quiet  time.Duration // when the group last acknowledged one, or when one was sent to it with none in flight
	held   []func()      // decisions waiting for the group to answer
}

// deliver sends t's decision to its cohorts, and marks t finished once
// every one has it in its log.
func (c *CoordServer) deliver(t *txn) {
	if _, ok := c.sending[t.ID]; ok {
		return
	}
	c.sending[t.ID] = nil
	if c.cfg.OnePhaseReads && readOnly(t.Ops) {
		c.finished(t.ID) // its cohorts kept nothing
		return
	}
	acks := 0
	for _, s := range t.Shards {
		c.post(s, func() {
			args := &DecideArgs{ID: t.ID, Commit: t.State == committed}
			c.sending[t.ID] = append(c.sending[t.ID], c.shards[s].Call("ShardServer.Decide", args, func() any { return &DecideReply{} }, wrongLeader[*DecideReply], func(any) {
				c.acked(s)
				if acks++; acks == len(t.Shards) {
					c.finished(t.ID)
				}
			}))
		})
	}
}

// post sends a decision to shard group s (send makes the call), unless
// the group has decisions in flight and has acknowledged none for
// RPCTimeout: then it holds it back until the group answers.
func (c *CoordServer) post(s int, send func()) {
	ob, now := &c.outbox[s], c.host.Now()
	switch {
	case ob.flying == 0:
		ob.quiet = now
	case now-ob.quiet >= c.cfg.RPCTimeout:
		ob.held = append(ob.held, send)
		return
	}
	ob.flying++
	send()
}

// acked records that shard group s acknowledged a decision, and sends
// the ones held back.
func (c *CoordServer) acked(s int) {
	ob := &c.outbox[s]
	ob.flying--
	ob.quiet = c.host.Now()
	held := ob.held
	ob.held = nil
	for _, send := range held {
		c.post(s, send)
	}
}

// finished records that every cohort has id's decision: the table forgets
// the entry, in a log entry of its own unless it is gone already (a
// presumed commit).
func (c *CoordServer) finished(id Txid) {
	if _, ok := c.sending[id]; ok && c.leading {
		delete(c.sending, id)
		if c.sm.txns[id] != nil {
			c.finish.add(id)
		}
	}
}
