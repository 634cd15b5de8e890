package kvraft

import (
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// Options configure a KVServer: the service core's configuration (read
// mode, Raft timing). StartKVServer's maxraftstate sets MaxRaftState.
type Options = rsm.Config

// DefaultOptions reads through the log, with the lab's Raft timing.
func DefaultOptions() Options { return rsm.DefaultConfig() }

// KVServer is one replica of the key/value service.
type KVServer struct {
	rs *rsm.Server
}

// StartKVServer starts replica me of servers on host, restoring what
// persister holds. It snapshots once Raft's persisted state reaches
// maxraftstate bytes (-1: never). Register its Services on the host's
// labrpc server. The host shows the server's state (named "kv": its keys
// and last operation) beside its rsm's and Raft node's.
func StartKVServer(host *sim.Host, servers []*labrpc.ClientEnd, me int, persister *sim.Persister, maxraftstate int, opts Options) (*KVServer, error) {
	opts.MaxRaftState = maxraftstate
	st := &store{data: map[string]*value{}}
	rs, err := rsm.MakeServer(host, servers, me, persister, st, codec{}, opts)
	if err != nil {
		return nil, err
	}
	host.Inspect(opts.Raft.InspectAs("kv"), st)
	return &KVServer{rs: rs}, nil
}

// Raft returns the server's Raft node.
func (kv *KVServer) Raft() raftapi.Raft { return kv.rs.Raft() }

// GetState returns the server's Raft term and whether it leads.
func (kv *KVServer) GetState() (term int, isLeader bool) { return kv.rs.Raft().GetState() }

// Kill stops the server and its Raft node.
func (kv *KVServer) Kill() { kv.rs.Kill() }

// serviceType is KVServer's RPC methods, found and checked once
// (labrpc.ServiceType): a search builds a world, and its servers'
// services, for every schedule it runs.
var serviceType = labrpc.TypeOf((*KVServer)(nil))

// Services returns the server's RPC services, its own ("KVServer.Get",
// "KVServer.PutAppend") and its Raft node's, with handlers registered
// typed: register them on the host's labrpc server.
func (kv *KVServer) Services() []*labrpc.Service {
	svc := serviceType.Service(kv)
	labrpc.HandleDeferred(svc, "Get", kv.Get)
	labrpc.HandleDeferred(svc, "PutAppend", kv.PutAppend)
	return []*labrpc.Service{svc, raftapi.ServiceOf(kv.Raft())}
}

// Get is the handler for Gets.
func (kv *KVServer) Get(args *GetArgs, reply *GetReply, d *labrpc.Deferred) {
	kv.rs.Read(Op{Kind: OpGet, Key: args.Key}, func(r any, ok bool) {
		reply.Err = ErrWrongLeader
		if ok {
			res := r.(result)
			reply.Err, reply.Value, reply.Version = res.err, res.value, res.version
		}
		d.Reply()
	})
}

// PutAppend is the handler for Puts, Appends and CPuts.
func (kv *KVServer) PutAppend(args *PutAppendArgs, reply *PutAppendReply, d *labrpc.Deferred) {
	op := Op{Kind: args.Op, Key: args.Key, Value: args.Value, Version: args.Version}
	kv.rs.Submit(rsm.Session{Client: args.ClientID, Seq: args.Seq}, op, func(r any, ok bool) {
		switch {
		case !ok:
			reply.Err = ErrWrongLeader
		case r == nil: // answered before it committed (a planted bug)
			reply.Err = OK
		default:
			reply.Err = r.(result).err
		}
		d.Reply()
	})
}
