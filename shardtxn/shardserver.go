package shardtxn

import (
	"fmt"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A ShardServer is one replica of a shard group: a cohort of two-phase
// commit. Every step of a cohort (prepare, commit, abort) goes through the
// shard's log, so a prepared shard survives its leader's crash.
type ShardServer struct {
	rs   *rsm.Server
	sm   *shard
	host *sim.Host
	cfg  Config

	// waiting are the prepares this leader holds back for a locked key,
	// by key: each is retried when the key's lock is released.
	waiting map[string][]func()

	// Paper 003's options: the coordinators, asked how a transaction
	// stands, and the background cleanup (see cleanup).
	coord   *rsm.Router
	cleaner *sim.Timer
	seen    map[Txid]time.Duration // prepared transactions, when the cleanup first saw them
	asking  map[Txid]func()        // the cleanup's questions in flight: their cancels
}

// StartShard starts replica me of shard group shard on host, restoring
// what persister holds; coordinators are its ends to the coordinator
// group's replicas, asked under paper 003's options, and dir its end to
// the directory under ReplicaManager discovery (nil otherwise). Register
// its Services on the host's labrpc server. It refuses a nil or dead
// host, a nil persister, a group with no ends and a nil end, naming it.
func StartShard(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, shard int, coordinators []*labrpc.ClientEnd, dir *labrpc.ClientEnd, cfg Config) (*ShardServer, error) {
	if err := checkServer("StartShard", host, peers, persister); err != nil {
		return nil, err
	}
	if err := checkEnds("StartShard", coordinators, "the coordinator group"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.directory(dir); err != nil {
		return nil, err
	}
	if shard < 0 {
		return nil, fmt.Errorf("shardtxn: StartShard: shard %d is negative", shard)
	}
	s := &ShardServer{sm: newShard(cfg.bugs), host: host, cfg: cfg, waiting: map[string][]func(){},
		seen: map[Txid]time.Duration{}, asking: map[Txid]func(){}}
	s.sm.released = s.wake
	cfg.RSM.Raft.Group = ShardGroup(shard) // its nodes' states stay apart from other groups' on a shared host
	rs, err := rsm.MakeServer(host, peers, me, persister, s.sm, rsm.NewGobCodec[shardCmd, shardResult](), cfg.RSM)
	if err != nil {
		return nil, err
	}
	s.rs = rs
	s.coord = rsm.MakeRouter(host, coordinators)
	s.coord.SetTimeout(cfg.RPCTimeout)
	s.coord.SetBackoff(cfg.RetryPause, cfg.RetryMax)
	if dir != nil {
		rs.Announce(rsm.Listing{Dir: dir, Group: ShardGroup(shard)})
		s.coord.Discover(rsm.Listing{Dir: dir, Group: CoordGroup})
	}
	s.cleaner = host.NewTimer(s.cleanup)
	if cfg.cleans() {
		s.cleaner.Reset(cfg.Tick)
	}
	host.Inspect(cfg.RSM.Raft.InspectAs("txn"), s)
	return s, nil
}

// shardServiceType is ShardServer's RPC methods, found and checked once
// (labrpc.ServiceType): a search builds a world, and its servers'
// services, for every schedule it runs.
var shardServiceType = labrpc.TypeOf((*ShardServer)(nil))

// Services returns the server's RPC services ("ShardServer.Prepare",
// "ShardServer.Decide", "ShardServer.Execute") and its Raft node's.
func (s *ShardServer) Services() []*labrpc.Service {
	svc := shardServiceType.Service(s)
	labrpc.HandleDeferred(svc, "Prepare", s.Prepare)
	labrpc.HandleDeferred(svc, "Decide", s.Decide)
	labrpc.HandleDeferred(svc, "Execute", s.Execute)
	return []*labrpc.Service{svc, raftapi.ServiceOf(s.rs.Raft())}
}

// OnLeadership asks the server to call fn when its Raft node becomes
// leader of a term (leading true) and when it stops leading: a test or a
// nemesis aims at a shard's leader without watching the wire. A nil fn
// stops the calls.
func (s *ShardServer) OnLeadership(fn func(term int, leading bool)) { s.rs.OnLeadership(fn) }

// GetState returns the server's Raft term and whether it leads.
func (s *ShardServer) GetState() (term int, isLeader bool) { return s.rs.Raft().GetState() }

// Kill stops the server and its Raft node.
func (s *ShardServer) Kill() {
	s.cleaner.Stop()
	s.rs.Kill()
}

// OnInstall asks the server to call fn for each write a commit installs,
// in the order the shard applies them (a delete has del true): the
// white-box version order a transaction checker may hold reads against.
// A nil fn stops the calls.
func (s *ShardServer) OnInstall(fn func(key, value string, del bool)) { s.sm.installed = fn }

// Watch makes w hear what this replica's state machine applies of
// two-phase transactions: each it prepares and each decision applied to
// one it prepared (see Watcher). A restarted replica that restores a
// snapshot or replays its log tells w again of what it applies.
func (s *ShardServer) Watch(w Watcher) { s.sm.watch = w }

// Locks returns how many keys are locked and how many transactions are
// prepared on this replica: both drain to zero once every transaction is
// decided and delivered.
func (s *ShardServer) Locks() (keys, prepared int) { return len(s.sm.locks), len(s.sm.prepared) }

// Applied returns the index of the last entry of the shard's log that
// this replica applied: how long the log has grown, snapshots or not.
func (s *ShardServer) Applied() int { return s.rs.Applied() }

// Prepare is the handler for a coordinator's prepare: it takes the
// transaction's locks through the shard's log, waiting for a locked key
// until the prepare's lock wait runs out, and votes.
func (s *ShardServer) Prepare(args *PrepareArgs, reply *PrepareReply, d *labrpc.Deferred) {
	if refused(args, reply, d) {
		return
	}
	s.locking(shardCmd{Prepare: &prepareCmd{ID: args.ID, Ops: args.Ops, OnePhase: args.OnePhase}}, func(res shardResult, ok bool) {
		answer(reply, res, ok)
		if reply.Yes && s.cfg.bugs.dropLocksOnTimeout && !args.OnePhase {
			s.host.After(s.cfg.TxnTimeout, func() { s.rs.Submit(rsm.Session{}, shardCmd{Decide: &decideCmd{ID: args.ID}}, func(any, bool) {}) })
		}
		d.Reply()
	})
}

// Execute is the handler for a client's transaction on this shard alone:
// it commits (or aborts) in one step of the shard's log, waiting for
// locked keys as a prepare does; under LocalReads, a leader answers one
// that only reads from its state at once.
func (s *ShardServer) Execute(args *PrepareArgs, reply *PrepareReply, d *labrpc.Deferred) {
	if refused(args, reply, d) {
		return
	}
	if s.cfg.LocalReads && readOnly(args.Ops) {
		reply.Err = ErrWrongLeader
		if s.rs.IsLeader() {
			answer(reply, s.sm.prepare(&prepareCmd{ID: args.ID, Ops: args.Ops, OnePhase: true}), true)
		}
		d.Reply()
		return
	}
	s.locking(shardCmd{Execute: &prepareCmd{ID: args.ID, Ops: args.Ops}}, func(res shardResult, ok bool) {
		answer(reply, res, ok)
		d.Reply()
	})
}

// refused answers a malformed prepare (or one-shard transaction) with
// ErrBadRequest and reports whether it did: a coordinator checked its
// client's, so only a raw call sends one.
func refused(args *PrepareArgs, reply *PrepareReply, d *labrpc.Deferred) bool {
	err := checkRequest(args.ID, args.Ops)
	if err != nil {
		reply.Err, reply.Reason = ErrBadRequest, err.Error()
		d.Reply()
	}
	return err != nil
}

// answer fills a prepare's reply with a command's result.
func answer(reply *PrepareReply, res shardResult, ok bool) {
	if !ok {
		reply.Err = ErrWrongLeader
		return
	}
	reply.Err, reply.Yes, reply.Results, reply.Reason = OK, res.Vote == voteYes, res.Results, res.Reason
}

// locking puts cmd, which needs locks, through the log until it finds its
// keys free; then it calls done with the result, or with ok false if this
// server does not lead. On a locked key, it waits up to a random
// LockWait…2·LockWait (LockWaits) or resolves the holder's write intent
// (WriteIntents, see resolve); when the wait runs out or the holder is
// pending, a conflict votes no.
func (s *ShardServer) locking(cmd shardCmd, done func(res shardResult, ok bool)) {
	deadline := s.host.Now() + s.host.RandDuration(s.cfg.LockWait, 2*s.cfg.LockWait)
	if s.cfg.bugs.fixedLockWait {
		deadline = s.host.Now() + s.cfg.LockWait
	}
	if s.cfg.Conflicts == WriteIntents {
		deadline = s.host.Now() + s.cfg.RPCTimeout
	}
	var attempt func()
	attempt = func() {
		s.submit(cmd, func(r any, ok bool) {
			if !ok {
				done(shardResult{}, false)
				return
			}
			res := r.(shardResult)
			switch {
			case res.Vote != voteConflict:
				done(res, true)
			case s.cfg.Conflicts == WriteIntents:
				s.resolve(res, deadline, attempt, func(reason string) { s.refuse(cmd, reason, done) }, done)
			case s.host.Now() < deadline:
				s.await(res.Conflict, deadline, attempt)
			default:
				s.refuse(cmd, "lock wait timed out on "+res.Conflict, done)
			}
		})
	}
	attempt()
}

// refuse votes no on cmd, which met a conflict. A prepare's no is only a
// vote (the coordinator decides); a one-shard transaction's is its
// outcome, made final through the log first (see refuseCmd).
func (s *ShardServer) refuse(cmd shardCmd, reason string, done func(res shardResult, ok bool)) {
	if cmd.Execute == nil {
		done(shardResult{Vote: voteNo, Reason: reason}, true)
		return
	}
	s.submit(shardCmd{Refuse: &refuseCmd{ID: cmd.Execute.ID, Reason: reason}}, func(r any, ok bool) {
		if !ok {
			done(shardResult{}, false)
			return
		}
		done(r.(shardResult), true)
	})
}

// submit puts a command through the shard's log, unless the leader's
// state answers it already (see shard.known): a coordinator that cannot
// hear a shard's answers retries, and each try would otherwise be one more
// entry in the log. With the planted bug, a leader applies prepares to
// its own state instead.
func (s *ShardServer) submit(cmd shardCmd, done rsm.Done) {
	if res, ok := s.sm.known(cmd); ok && s.rs.IsLeader() {
		done(res, true)
		return
	}
	if s.cfg.bugs.prepareNotReplicated && cmd.Prepare != nil {
		if !s.rs.IsLeader() {
			done(nil, false)
			return
		}
		done(s.sm.Apply(cmd), true)
		return
	}
	s.rs.Submit(rsm.Session{}, cmd, done)
}

// await runs retry once key's lock is released or at deadline, whichever
// comes first.
func (s *ShardServer) await(key string, deadline time.Duration, retry func()) {
	fired := false
	once := func() {
		if !fired {
			fired = true
			retry()
		}
	}
	s.waiting[key] = append(s.waiting[key], once)
	s.host.After(deadline-s.host.Now(), once)
}

// wake retries the prepares waiting for keys, after the apply that freed
// them has finished.
func (s *ShardServer) wake(keys []string) {
	var ready []func()
	for _, k := range keys {
		ready = append(ready, s.waiting[k]...)
		delete(s.waiting, k)
	}
	for _, f := range ready {
		s.host.After(0, f)
	}
}

// Decide is the handler for a coordinator's decision: it answers once the
// shard's log holds it.
func (s *ShardServer) Decide(args *DecideArgs, reply *DecideReply, d *labrpc.Deferred) {
	if err := args.ID.check(); err != nil {
		reply.Err = ErrBadRequest
		d.Reply()
		return
	}
	s.settle(args.ID, args.Commit, func(ok bool) {
		reply.Err = ErrWrongLeader
		if ok {
			reply.Err = OK
		}
		d.Reply()
	})
}
