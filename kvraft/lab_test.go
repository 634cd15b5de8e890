package kvraft_test

import (
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// lab is the service the catalogue tests: ours, with the default options.
var lab = service(kvraft.DefaultOptions())

// service is our key/value service with opts, as the catalogue drives it.
// It must do 30 sequential appends per heartbeat, ten times the lab's bar.
// It keeps no state outside its worlds, so the tests run in parallel.
func service(opts kvraft.Options) kvtest.Service {
	return kvtest.Service{
		StartServer: func(host *sim.Host, servers []*labrpc.ClientEnd, me int, ps *sim.Persister, maxraftstate int) (kvtest.Server, error) {
			kv, err := kvraft.StartKVServer(host, servers, me, ps, maxraftstate, opts)
			if err != nil {
				return nil, err
			}
			return kv, nil
		},
		MakeClerk: func(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV {
			return kvraft.MakeClerk(host, servers)
		},
		Heartbeat:       opts.Raft.Heartbeat,
		OpsPerHeartbeat: 30,
		Parallel:        true,
	}
}
