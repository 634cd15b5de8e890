package workload

import (
	"github.com/replab/replab/cluster"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/linearize"
	"github.com/replab/replab/sim"
)

// KVServers returns the cluster factory of kvraft servers that snapshot at
// maxraftstate bytes (-1: never).
func KVServers(maxraftstate int, opts kvraft.Options) cluster.Factory {
	return func(host *sim.Host, peers []*labrpc.ClientEnd, me int, ps *sim.Persister) (cluster.Replica, []*labrpc.Service, error) {
		kv, err := kvraft.StartKVServer(host, peers, me, ps, maxraftstate, opts)
		if err != nil {
			return nil, nil, err
		}
		return kv, kv.Services(), nil
	}
}

// A KVClient is a kvraft clerk whose every operation goes into a history,
// with its virtual call and return times, for a linearizability check.
type KVClient struct {
	*kvraft.Clerk
	history *linearize.History
	id      int // the client's number in the history
}

// NewKVClient records ck's operations in h as client id.
func NewKVClient(ck *kvraft.Clerk, h *linearize.History, id int) *KVClient {
	return &KVClient{Clerk: ck, history: h, id: id}
}

func (r *KVClient) call(in linearize.KVInput) int {
	return r.history.Call(r.id, in, r.Host().World().Now())
}

func (r *KVClient) ret(op int, out linearize.KVOutput) {
	r.history.Return(op, out, r.Host().World().Now())
}

// Get is Clerk.Get, recorded.
func (r *KVClient) Get(key string, done func(value string, version int64)) {
	op := r.call(linearize.KVInput{Kind: linearize.Get, Key: key})
	r.Clerk.Get(key, func(v string, version int64) {
		r.ret(op, linearize.KVOutput{Value: v, Version: version})
		done(v, version)
	})
}

// Put is Clerk.Put, recorded.
func (r *KVClient) Put(key, value string, done func()) {
	op := r.call(linearize.KVInput{Kind: linearize.Put, Key: key, Value: value})
	r.Clerk.Put(key, value, func() {
		r.ret(op, linearize.KVOutput{})
		done()
	})
}

// Append is Clerk.Append, recorded.
func (r *KVClient) Append(key, value string, done func()) {
	op := r.call(linearize.KVInput{Kind: linearize.Append, Key: key, Value: value})
	r.Clerk.Append(key, value, func() {
		r.ret(op, linearize.KVOutput{})
		done()
	})
}

// CPut is Clerk.CPut, recorded.
func (r *KVClient) CPut(key, value string, version int64, done func(ok bool)) {
	op := r.call(linearize.KVInput{Kind: linearize.CPut, Key: key, Value: value, Version: version})
	r.Clerk.CPut(key, value, version, func(ok bool) {
		r.ret(op, linearize.KVOutput{OK: ok})
		done(ok)
	})
}
