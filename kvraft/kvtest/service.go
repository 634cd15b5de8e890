package kvtest

import (
	"time"

	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim"
)

// A Server is one replica of the key/value service under test. Its RPC
// handlers and its Raft's are registered by reflection, unless it has a
// method Services() []*labrpc.Service that returns them (registered typed,
// see labrpc.Handle).
type Server interface {
	// Raft returns the server's Raft node, whose RPC handlers are
	// registered beside the server's own.
	Raft() raftapi.Raft
	// Kill stops the server and its Raft node.
	Kill()
}

// A Service is the key/value service under test, as the catalogue makes
// and drives it.
type Service struct {
	// StartServer starts replica me of servers on host, restored from what
	// persister holds. It snapshots once Raft's persisted state reaches
	// maxraftstate bytes (-1: never). The server's RPC handlers are its
	// exported methods of the labrpc shape, registered under its type's
	// name (a type called KVServer serves "KVServer.Get").
	StartServer func(host *sim.Host, servers []*labrpc.ClientEnd, me int, persister *sim.Persister, maxraftstate int) (Server, error)
	// MakeClerk returns a clerk on host that talks to servers. Its Get
	// returns the key's version too: the number of writes to the key.
	MakeClerk func(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV
	// Heartbeat is the Raft's heartbeat interval. TestSpeed and
	// TestSpeedSnapshot want at least OpsPerHeartbeat sequential appends
	// to complete per heartbeat (the lab asks for 3).
	Heartbeat       time.Duration
	OpsPerHeartbeat float64
	// Parallel runs the catalogue's tests in parallel with each other
	// (t.Parallel). Each test has a world of its own, so a service may
	// say so when its servers and clerks share no state between worlds:
	// no package variables they write.
	Parallel bool
}

// factory is the cluster factory of the service's servers.
func (s Service) factory(maxraftstate int) cluster.Factory {
	return func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
		host, peers, me, ps := n.Host, n.Peers, n.Me, n.Persister
		srv, err := s.StartServer(host, peers, me, ps, maxraftstate)
		if err != nil {
			return nil, nil, err
		}
		if s, ok := srv.(servicer); ok {
			return replica{srv}, s.Services(), nil
		}
		return replica{srv}, []*labrpc.Service{labrpc.MakeService(srv), raftapi.ServiceOf(srv.Raft())}, nil
	}
}

// A servicer is a server that registers its RPC handlers and its Raft's
// itself, typed (see labrpc.Handle), so that the network calls them
// without reflection.
type servicer interface {
	Services() []*labrpc.Service
}

// replica is a server as the cluster sees it.
type replica struct{ Server }

// GetState returns the server's Raft term and whether it leads.
func (r replica) GetState() (term int, isLeader bool) { return r.Raft().GetState() }
