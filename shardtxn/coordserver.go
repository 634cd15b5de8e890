package shardtxn

import (
	"fmt"
	"maps"
	"slices"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A CoordServer is one replica of the coordinator group: the transaction
// manager. Its log holds the transaction table; its leader drives two-phase
// commit: it enters a transaction in the table, sends prepares to the
// shards the transaction touches, puts the decision in the table, and only
// then sends it to the cohorts and answers the client. A new leader
// finishes what its predecessor left undecided or undelivered.
type CoordServer struct {
	rs     *rsm.Server
	sm     *coordinator
	host   *sim.Host
	cfg    Config
	shards []*rsm.Router

	leading bool
	driving map[Txid]*drive                    // transactions this leader is preparing
	sending map[Txid][]func()                  // decisions this leader is delivering: the calls' cancels
	waiters map[Txid][]func(coordResult, bool) // clients waiting for a decision; false: ask the next leader
	decide  batcher[decision]
	finish  batcher[Txid]
	ticker  *sim.Timer
	outbox  []outbox // per shard group: the decisions in flight and held back
	onLead  func(term int, leading bool)
}

// A drive is one transaction's prepare phase at the leader.
type drive struct {
	t       *txn
	votes   int
	results [][]Result // per participant
	over    bool       // decided: later votes are ignored
	calls   []func()   // the prepares' cancels
}

// end marks the prepare phase decided and cancels the prepares still
// under way: a cohort that never prepared needs nothing but the
// decision, which the leader delivers (see deliver).
func (dr *drive) end() {
	dr.over = true
	cancelAll(dr.calls)
}

// cancelAll cancels calls under way (rsm.Router.Call's cancels).
func cancelAll(cancels []func()) {
	for _, cancel := range cancels {
		cancel()
	}
}

// StartCoordinator starts replica me of the coordinator group on host,
// restoring what persister holds; shards[s] are its ends to shard group
// s's replicas, and dir its end to the directory under ReplicaManager
// discovery (nil otherwise). Register its Services on the host's labrpc
// server. It refuses a nil or dead host, a nil persister, no shard groups,
// a group with no ends and a nil end, naming it.
func StartCoordinator(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, shards [][]*labrpc.ClientEnd, dir *labrpc.ClientEnd, cfg Config) (*CoordServer, error) {
	if err := checkServer("StartCoordinator", host, peers, persister); err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("shardtxn: StartCoordinator: no shard groups")
	}
	for s, ends := range shards {
		if err := checkEnds("StartCoordinator", ends, fmt.Sprintf("shard group %d", s)); err != nil {
			return nil, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.directory(dir); err != nil {
		return nil, err
	}
	c := &CoordServer{sm: newCoordinator(len(shards), cfg.Presumption, cfg.bugs), host: host, cfg: cfg,
		driving: map[Txid]*drive{}, sending: map[Txid][]func(){}, waiters: map[Txid][]func(coordResult, bool){}}
	for s, ends := range shards {
		r := rsm.MakeRouter(host, ends)
		r.SetTimeout(cfg.RPCTimeout)
		r.SetBackoff(cfg.RetryPause, cfg.RetryMax)
		if dir != nil {
			r.Discover(rsm.Listing{Dir: dir, Group: ShardGroup(s)})
		}
		c.shards = append(c.shards, r)
	}
	c.outbox = make([]outbox, len(shards))
	cfg.RSM.Raft.Group = CoordGroup // its nodes' states stay apart from other groups' on a shared host
	rs, err := rsm.MakeServer(host, peers, me, persister, c.sm, rsm.NewGobCodec[coordCmd, coordResult](), cfg.RSM)
	if err != nil {
		return nil, err
	}
	if dir != nil {
		rs.Announce(rsm.Listing{Dir: dir, Group: CoordGroup})
	}
	c.rs = rs
	c.decide.submit = func(batch []decision, done func(bool)) {
		c.rs.Submit(rsm.Session{}, coordCmd{Decide: batch}, func(r any, ok bool) {
			if ok {
				for i, res := range r.([]coordResult) {
					c.decided(batch[i].ID, res)
				}
			}
			done(ok)
		})
	}
	c.finish.submit = func(batch []Txid, done func(bool)) {
		c.rs.Submit(rsm.Session{}, coordCmd{Finish: batch}, func(_ any, ok bool) { done(ok) })
	}
	c.ticker = host.NewTimer(c.tick)
	rs.OnLeadership(c.leadership)
	host.Inspect(cfg.RSM.Raft.InspectAs("txn"), c)
	return c, nil
}

// coordServiceType is CoordServer's RPC methods, found and checked once
// (labrpc.ServiceType): a search builds a world, and its servers'
// services, for every schedule it runs.
var coordServiceType = labrpc.TypeOf((*CoordServer)(nil))

// Services returns the server's RPC services ("CoordServer.Txn",
// "CoordServer.Status") and its Raft node's.
func (c *CoordServer) Services() []*labrpc.Service {
	svc := coordServiceType.Service(c)
	labrpc.HandleDeferred(svc, "Txn", c.Txn)
	labrpc.HandleDeferred(svc, "Status", c.Status)
	return []*labrpc.Service{svc, raftapi.ServiceOf(c.rs.Raft())}
}

// OnLeadership asks the server to call fn when its Raft node becomes
// leader of a term (leading true) and when it stops leading, after the
// server has taken the news itself: a test or a nemesis aims at the
// coordinator leader without watching the wire. A nil fn stops the calls.
func (c *CoordServer) OnLeadership(fn func(term int, leading bool)) { c.onLead = fn }

// GetState returns the server's Raft term and whether it leads.
func (c *CoordServer) GetState() (term int, isLeader bool) { return c.rs.Raft().GetState() }

// Kill stops the server and its Raft node.
func (c *CoordServer) Kill() {
	c.ticker.Stop()
	c.rs.Kill()
}

// Pending returns how many transactions the table holds unfinished: it
// drains to zero once every decision is delivered.
func (c *CoordServer) Pending() int { return len(c.sm.txns) }

// Applied returns the index of the last entry of the coordinator's log
// that this replica applied: how long the log has grown, snapshots or
// not.
func (c *CoordServer) Applied() int { return c.rs.Applied() }

// Batching returns how many decisions this replica submitted as leader,
// and in how many log entries.
func (c *CoordServer) Batching() (decisions, entries int) { return c.decide.items, c.decide.entries }

// Decided returns how many transactions are decided but not yet known to
// be in every cohort's log: those of the table, and under PresumedCommit
// the commits this leader is still delivering (their entries are gone).
func (c *CoordServer) Decided() int {
	n := 0
	for _, t := range c.sm.txns {
		if t.State != preparing {
			n++
		}
	}
	for id := range c.sending {
		if c.sm.txns[id] == nil {
			n++
		}
	}
	return n
}

// Status is the handler for a cohort asking how a transaction stands (paper
// 003's conflict resolution and background cleanup): the table is read
// through the log, so that a new leader cannot answer from a table that
// lacks entries its predecessor committed.
func (c *CoordServer) Status(args *StatusArgs, reply *StatusReply, d *labrpc.Deferred) {
	id := args.ID
	if err := id.check(); err != nil {
		reply.Err = ErrBadRequest
		d.Reply()
		return
	}
	c.rs.Read(coordCmd{Status: &id}, func(r any, ok bool) {
		reply.Err = ErrWrongLeader
		if ok {
			st := r.(coordResult).State
			reply.Err, reply.Decided, reply.Committed = OK, st != preparing, st == committed
		}
		d.Reply()
	})
}

// Txn is the handler for a client's transaction: it answers with the
// decision once the table holds it.
func (c *CoordServer) Txn(args *TxnArgs, reply *TxnReply, d *labrpc.Deferred) {
	if err := checkRequest(args.ID, args.Ops); err != nil {
		reply.Err, reply.Reason = ErrBadRequest, err.Error()
		d.Reply()
		return
	}
	if s, ok := oneShard(args.Ops, len(c.shards)); ok && c.cfg.Relay {
		c.relay(s, args, reply, d)
		return
	}
	answer := func(res coordResult, ok bool) {
		reply.Err, reply.Committed, reply.Results, reply.Reason = OK, res.State == committed, res.Results, res.Reason
		if !ok {
			reply.Err = ErrWrongLeader
		}
		d.Reply()
	}
	begin := &beginCmd{ID: args.ID, At: c.host.Now(), Ops: args.Ops}
	c.rs.Submit(rsm.Session{}, coordCmd{Begin: begin}, func(r any, ok bool) {
		if !ok || !c.leading {
			answer(coordResult{}, false)
			return
		}
		res := r.(coordResult)
		if res.State != preparing {
			answer(res, true)
			return
		}
		c.waiters[args.ID] = append(c.waiters[args.ID], answer)
		if t := c.sm.txns[args.ID]; t != nil && t.State == preparing {
			c.prepare(t)
		}
	})
}

// relay passes a transaction on shard s alone to the shard (Config.Relay)
// and its outcome back to the client. The shard runs it once whichever
// coordinator relays it, however often: a client's retry under the same
// Txid gets the first run's result.
func (c *CoordServer) relay(s int, args *TxnArgs, reply *TxnReply, d *labrpc.Deferred) {
	if !c.leading {
		reply.Err = ErrWrongLeader
		d.Reply()
		return
	}
	c.shards[s].Call("ShardServer.Execute", &PrepareArgs{ID: args.ID, Ops: args.Ops}, func() any { return &PrepareReply{} }, wrongLeader[*PrepareReply], func(r any) {
		res := r.(*PrepareReply)
		reply.Err, reply.Committed, reply.Results, reply.Reason = OK, res.Yes, res.Results, res.Reason
		d.Reply()
	})
}

// prepare sends t's prepares to its cohorts and decides on their votes.
func (c *CoordServer) prepare(t *txn) {
	if c.driving[t.ID] != nil {
		return
	}
	dr := &drive{t: t, results: make([][]Result, len(t.Shards))}
	c.driving[t.ID] = dr
	onePhase := c.cfg.OnePhaseReads && readOnly(t.Ops)
	for i, s := range t.Shards {
		args := &PrepareArgs{ID: t.ID, Ops: opsOn(t.Ops, s, len(c.shards)), OnePhase: onePhase}
		dr.calls = append(dr.calls, c.shards[s].Call("ShardServer.Prepare", args, func() any { return &PrepareReply{} }, wrongLeader[*PrepareReply], func(r any) {
			reply := r.(*PrepareReply)
			if c.driving[t.ID] != dr || dr.over {
				return // decided already, or this leader lost and regained office
			}
			if !reply.Yes {
				dr.end()
				c.decideLater(decision{ID: t.ID, Reason: reply.Reason})
				return
			}
			dr.results[i] = reply.Results
			if dr.votes++; dr.votes == len(t.Shards) {
				dr.end()
				c.decideLater(decision{ID: t.ID, Commit: true, Results: merge(t.Ops, t.Shards, dr.results, len(c.shards))})
			}
		}))
	}
}

// decideLater puts a decision in the table (batched with others); with the
// planted bugs, it also sends it to the cohorts, or answers the client, at
// once.
func (c *CoordServer) decideLater(d decision) {
	if c.cfg.bugs.answerBeforeReplicated {
		res := coordResult{State: aborted, Reason: d.Reason, Known: true}
		if d.Commit {
			res = coordResult{State: committed, Results: d.Results, Known: true}
		}
		for _, answer := range c.waiters[d.ID] {
			answer(res, true)
		}
		delete(c.waiters, d.ID)
	}
	if c.cfg.bugs.decideBeforeReplicated {
		t := *c.sm.txns[d.ID]
		t.State = aborted
		if d.Commit {
			t.State = committed
		}
		c.deliver(&t)
	}
	c.decide.add(d)
}

// decided answers the clients waiting for id and delivers the decision
// (paper 003's workers: the client does not wait for the cohorts).
func (c *CoordServer) decided(id Txid, res coordResult) {
	dr := c.driving[id]
	delete(c.driving, id)
	for _, answer := range c.waiters[id] {
		answer(res, true)
	}
	delete(c.waiters, id)
	t := c.sm.txns[id]
	if t == nil && dr != nil && res.State != preparing {
		// Presumed commit: the entry left the table with its decision.
		left := *dr.t
		left.State = res.State
		t = &left
	}
	if t != nil && t.State != preparing {
		c.deliver(t)
	}
}

// leadership starts recovery when this replica becomes leader, and drops
// the leader's work when it stops leading, cancelling its calls: the next
// leader recovers what they were for from the table.
func (c *CoordServer) leadership(term int, leading bool) {
	c.leading = leading
	if c.onLead != nil {
		defer c.onLead(term, leading)
	}
	if !leading {
		for _, id := range slices.SortedFunc(maps.Keys(c.waiters), compareTxid) {
			for _, answer := range c.waiters[id] {
				answer(coordResult{}, false)
			}
		}
		for _, id := range slices.SortedFunc(maps.Keys(c.driving), compareTxid) {
			cancelAll(c.driving[id].calls)
		}
		for _, id := range slices.SortedFunc(maps.Keys(c.sending), compareTxid) {
			cancelAll(c.sending[id])
		}
		c.waiters = map[Txid][]func(coordResult, bool){}
		c.driving, c.sending = map[Txid]*drive{}, map[Txid][]func(){}
		clear(c.outbox)
		c.decide.reset()
		c.finish.reset()
		c.ticker.Stop()
		return
	}
	c.ticker.Reset(c.cfg.Tick)
	c.host.After(0, func() {
		c.rs.Submit(rsm.Session{}, coordCmd{Barrier: true}, func(_ any, ok bool) {
			if ok && c.leading && !c.cfg.bugs.skipRecovery {
				c.recover()
			}
		})
	})
}

// recover finishes the transactions in the table: it prepares the
// undecided again (prepares are idempotent) and delivers the decided.
func (c *CoordServer) recover() {
	for _, t := range c.sm.pending() {
		if t.State == preparing {
			c.prepare(t)
		} else {
			c.deliver(t)
		}
	}
}

// tick aborts the transactions undecided for TxnTimeout or longer.
func (c *CoordServer) tick() {
	if !c.leading {
		return
	}
	for _, t := range c.sm.pending() {
		if t.State != preparing || c.host.Now()-t.At < c.cfg.TxnTimeout {
			continue
		}
		if dr := c.driving[t.ID]; dr == nil || !dr.over {
			if dr != nil {
				dr.end()
			}
			c.decideLater(decision{ID: t.ID, Reason: "transaction timed out"})
		}
	}
	c.ticker.Reset(c.cfg.Tick)
}

// oneShard returns the shard of ops, if they are all on one of shards.
func oneShard(ops []Op, shards int) (int, bool) {
	s := ShardOf(ops[0].Key, shards)
	for _, o := range ops[1:] {
		if ShardOf(o.Key, shards) != s {
			return 0, false
		}
	}
	return s, true
}

// readOnly reports whether ops change nothing.
func readOnly(ops []Op) bool {
	for _, o := range ops {
		if o.writes() {
			return false
		}
	}
	return true
}

// opsOn returns the ops on shard s, in order.
func opsOn(ops []Op, s, shards int) []Op {
	var out []Op
	for _, o := range ops {
		if ShardOf(o.Key, shards) == s {
			out = append(out, o)
		}
	}
	return out
}

// merge puts the cohorts' results (results[i] from participant shards[i],
// in the order of its ops) back in the order of ops.
func merge(ops []Op, shards []int, results [][]Result, n int) []Result {
	next := make([]int, len(shards))
	out := make([]Result, len(ops))
	for j, o := range ops {
		s := ShardOf(o.Key, n)
		for i, sh := range shards {
			if sh == s {
				out[j] = results[i][next[i]]
				next[i]++
			}
		}
	}
	return out
}
