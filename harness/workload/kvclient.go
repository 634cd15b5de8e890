package workload

import (
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/labrpc"
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
