package kvraft

import (
	"fmt"
	"slices"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

// ReadMode says how a KVServer serves Gets.
type ReadMode int

// The read modes.
const (
	// ReadLog puts every Get through the Raft log, like a write.
	ReadLog ReadMode = iota
	// ReadIndex has the leader confirm its leadership with a round of
	// heartbeats, then read once it has applied the commit index.
	ReadIndex
	// ReadLease has a leader holding a lease read its own state at once;
	// without a lease it falls back to ReadIndex. Safe only while clocks
	// drift less than the Raft config's LeaseDrift.
	ReadLease
)

// Options configure a KVServer.
type Options struct {
	Reads ReadMode
	Raft  raft.Config
	bugs  bugs
}

// DefaultOptions reads through the log, with the lab's Raft timing.
func DefaultOptions() Options { return Options{Reads: ReadLog, Raft: raft.LabConfig()} }

// bugs are switches that plant known mistakes, so that the tests can show
// they catch each one. Only this package's tests set them.
type bugs struct {
	noDedup            bool // apply a retried write again
	replyBeforeCommit  bool // answer writes as soon as they are in the leader's log
	localReads         bool // answer Gets from local state on any server
	snapshotNoSessions bool // leave the de-duplication table out of snapshots
	leaseNoMargin      bool // run Raft's leases with no margin for clock drift
}

// KVServer is one replica of the key/value service.
type KVServer struct {
	me           int
	host         *sim.Host
	rf           *raft.Raft
	ps           *sim.Persister
	maxraftstate int
	opts         Options

	data     map[string]value
	sessions map[int64]session // each client's latest write and its outcome
	applied  int

	waiting map[int]*waiter // operations this leader submitted, by log index
	reads   []readWaiter    // confirmed reads waiting for the log to be applied
	watch   *sim.Timer      // notices lost leadership
}

type value struct {
	Value   string
	Version int64
}

type session struct {
	Seq int64
	Err Err
}

// A result is what an operation returns.
type result struct {
	err     Err
	value   string
	version int64
}

var wrongLeader = result{err: ErrWrongLeader}

type waiter struct {
	op     Op
	term   int
	answer func(result)
}

type readWaiter struct {
	index  int
	key    string
	answer func(result)
}

// StartKVServer starts replica me of servers on host, restoring what
// persister holds. It snapshots once Raft's persisted state reaches
// maxraftstate bytes (-1: never). Register both KVServer and Raft() as
// services on the host's labrpc server.
func StartKVServer(host *sim.Host, servers []*labrpc.ClientEnd, me int, persister *sim.Persister, maxraftstate int, opts Options) (*KVServer, error) {
	if maxraftstate == 0 || maxraftstate < -1 {
		return nil, fmt.Errorf("kvraft: maxraftstate %d must be positive, or -1 for no snapshots", maxraftstate)
	}
	if opts.Reads < ReadLog || opts.Reads > ReadLease {
		return nil, fmt.Errorf("kvraft: unknown read mode %d", int(opts.Reads))
	}
	kv := &KVServer{
		me: me, host: host, ps: persister, maxraftstate: maxraftstate, opts: opts,
		data: map[string]value{}, sessions: map[int64]session{}, waiting: map[int]*waiter{},
	}
	if err := kv.restore(persister.ReadSnapshot()); err != nil {
		return nil, fmt.Errorf("kvraft: server %d: bad snapshot: %w", me, err)
	}
	rcfg := opts.Raft
	rcfg.Codec = opCodec{}
	if opts.bugs.leaseNoMargin {
		rcfg.LeaseDrift = 0
	}
	rf, err := raft.Make(host, servers, me, persister, kv.apply, rcfg)
	if err != nil {
		return nil, err
	}
	kv.rf = rf
	kv.watch = host.NewTimer(kv.checkLeadership)
	kv.watch.Reset(rcfg.Heartbeat)
	return kv, nil
}

// Raft returns the server's Raft node.
func (kv *KVServer) Raft() *raft.Raft { return kv.rf }

// Kill stops the server and its Raft node.
func (kv *KVServer) Kill() {
	kv.rf.Kill()
	kv.watch.Stop()
}

// Get is the handler for Gets.
func (kv *KVServer) Get(args *GetArgs, reply *GetReply, d *labrpc.Deferred) {
	answer := func(r result) {
		reply.Err, reply.Value, reply.Version = r.err, r.value, r.version
		d.Reply()
	}
	if kv.opts.bugs.localReads {
		answer(kv.read(args.Key))
		return
	}
	if kv.opts.Reads == ReadLease {
		if index, ok := kv.rf.LeaseRead(); ok {
			kv.readAt(index, args.Key, answer)
			return
		}
	}
	if kv.opts.Reads != ReadLog {
		confirmed := func(index int, ok bool) {
			if !ok {
				answer(wrongLeader)
				return
			}
			kv.readAt(index, args.Key, answer)
		}
		if kv.rf.ReadIndex(confirmed) {
			return
		}
	}
	kv.submit(Op{Kind: OpGet, Key: args.Key, ClientID: args.ClientID, Seq: args.Seq}, answer)
}

// PutAppend is the handler for Puts, Appends and CPuts.
func (kv *KVServer) PutAppend(args *PutAppendArgs, reply *PutAppendReply, d *labrpc.Deferred) {
	answer := func(r result) {
		reply.Err = r.err
		d.Reply()
	}
	if s, ok := kv.sessions[args.ClientID]; ok && args.Seq == s.Seq && !kv.opts.bugs.noDedup {
		answer(result{err: s.Err}) // a retry of a write already applied
		return
	}
	op := Op{Kind: args.Op, Key: args.Key, Value: args.Value, Version: args.Version, ClientID: args.ClientID, Seq: args.Seq}
	kv.submit(op, answer)
}

// submit puts op in the log and answers once it is applied, or at once
// with ErrWrongLeader if this server does not lead.
func (kv *KVServer) submit(op Op, answer func(result)) {
	index, term, isLeader := kv.rf.Start(op)
	if !isLeader {
		answer(wrongLeader)
		return
	}
	if kv.opts.bugs.replyBeforeCommit && op.Kind != OpGet {
		answer(result{err: OK})
		return
	}
	if old := kv.waiting[index]; old != nil {
		old.answer(wrongLeader) // its entry was overwritten
	}
	kv.waiting[index] = &waiter{op: op, term: term, answer: answer}
}

// readAt serves a read of key once the log is applied up to index.
func (kv *KVServer) readAt(index int, key string, answer func(result)) {
	if kv.applied >= index {
		answer(kv.read(key))
		return
	}
	kv.reads = append(kv.reads, readWaiter{index: index, key: key, answer: answer})
}

func (kv *KVServer) read(key string) result {
	v, ok := kv.data[key]
	if !ok {
		return result{err: ErrNoKey}
	}
	return result{err: OK, value: v.Value, version: v.Version}
}

// checkLeadership answers ErrWrongLeader to every waiting operation if
// this server no longer leads the term it submitted in, so that clerks
// try elsewhere instead of waiting for a commit that may never come.
func (kv *KVServer) checkLeadership() {
	term, isLeader := kv.rf.GetState()
	indices := make([]int, 0, len(kv.waiting))
	for i := range kv.waiting {
		indices = append(indices, i)
	}
	slices.Sort(indices)
	for _, i := range indices {
		if w := kv.waiting[i]; !isLeader || w.term != term {
			delete(kv.waiting, i)
			w.answer(wrongLeader)
		}
	}
	kv.watch.Reset(kv.opts.Raft.Heartbeat)
}
