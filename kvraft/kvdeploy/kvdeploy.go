// Package kvdeploy deploys this module's key/value service on the cluster
// harness, for the sweeps, the experiments and kvraft's own tests: the
// factory of its servers. It sits beside kvraft as shardtxn/txntest sits
// beside shardtxn; the lab's catalogue, kvraft/kvtest, stays generic over
// any implementation (a course kit hands it out without this module's
// service).
package kvdeploy

import (
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/labrpc"
)

// Factory returns the cluster factory of kvraft servers that snapshot at
// maxraftstate bytes of Raft state (-1: never).
func Factory(maxraftstate int, opts kvraft.Options) cluster.Factory {
	return func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
		kv, err := kvraft.StartKVServer(n.Host, n.Peers, n.Me, n.Persister, maxraftstate, opts)
		if err != nil {
			return nil, nil, err
		}
		return kv, kv.Services(), nil
	}
}
