package services

import (
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/labrpc"
)

// KV returns the cluster factory of kvraft servers that snapshot at
// maxraftstate bytes (-1: never).
func KV(maxraftstate int, opts kvraft.Options) cluster.Factory {
	return func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
		kv, err := kvraft.StartKVServer(n.Host, n.Peers, n.Me, n.Persister, maxraftstate, opts)
		if err != nil {
			return nil, nil, err
		}
		return kv, kv.Services(), nil
	}
}
