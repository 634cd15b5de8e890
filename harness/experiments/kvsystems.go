package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvdeploy"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A kvSystem is a key/value service that the Frangipani report's tests
// measure: kvraft replicating on heartbeats only or on Start, or
// frangipani's caching clerks on its lock service.
type kvSystem struct {
	name      string
	cached    bool          // served from the clients' caches
	heartbeat time.Duration // kvraft replicating only on heartbeats: their interval; else 0
	// snapshots says whether the report's linearizable test of this
	// system snapshotted: its "My KV Raft" ran the lab's 3B test, with
	// snapshots; its "Optimized Raft" and Frangipani the 3A test, without.
	snapshots bool
	// cluster returns the deployment: replicas servers that snapshot at
	// maxraftstate bytes of Raft state (-1: never).
	cluster func(replicas, maxraftstate int) (cluster.Config, error)
	// clerk returns a client on host h of c.
	clerk func(c *cluster.Cluster, h *sim.Host) (workload.KV, error)
}

// reportHeartbeat is how often the report's "My KV Raft" sent its
// followers AppendEntries, each carrying the entries that arrived since
// the last: every 10 ms, the report's "one potential amendment" of a
// Raft that sends only on its 100 ms heartbeats, which it says passes the
// lab's speed test.
const reportHeartbeat = 10 * time.Millisecond

// kvraftSystem is kvraft on the lab's Raft, replicating as soon as Start
// is called (heartbeat 0: the lab's 100 ms heartbeats when idle) or only
// on heartbeats every heartbeat.
func kvraftSystem(name string, heartbeat time.Duration, snapshots bool) kvSystem {
	return kvSystem{
		name:      name,
		heartbeat: heartbeat,
		snapshots: snapshots,
		cluster: func(replicas, maxraftstate int) (cluster.Config, error) {
			rc := raft.LabConfig()
			if heartbeat > 0 {
				rc.Heartbeat, rc.HeartbeatOnly = heartbeat, true
			}
			opts := kvraft.Options{Reads: rsm.ReadLog, Raft: rc}
			return cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: replicas, Factory: kvdeploy.Factory(maxraftstate, opts)}}}, nil
		},
		clerk: func(c *cluster.Cluster, h *sim.Host) (workload.KV, error) {
			return kvraft.MakeClerk(h, c.Ends(h, 0, nil)), nil
		},
	}
}

// frangipaniSystem is frangipani with its default leases, on the lab's
// Raft replicating on Start; with locksOnly, its clerks take a key's lock
// for every operation, as the report's do.
func frangipaniSystem(name string, locksOnly bool) kvSystem {
	deployment := func(replicas, maxraftstate int) frangipanitest.Deployment {
		cfg := frangipani.DefaultConfig()
		cfg.RSM.MaxRaftState = maxraftstate
		cfg.LocksOnly = locksOnly
		return frangipanitest.Deployment{Replicas: replicas, Config: cfg}
	}
	return kvSystem{
		name:   name,
		cached: true,
		cluster: func(replicas, maxraftstate int) (cluster.Config, error) {
			return deployment(replicas, maxraftstate).Cluster()
		},
		clerk: func(c *cluster.Cluster, h *sim.Host) (workload.KV, error) {
			ck, err := deployment(c.Replicas(0), -1).Clerk(c, h)
			return frangipanitest.CachingKV{Clerk: ck}, err
		},
	}
}

// The systems the frangipani experiments compare: the report's three, in
// its order, and frangipani as it is here; and kvraft replicating on the
// lab's heartbeats, which kv-replication sets beside the report's.
var (
	kvHeartbeat    = kvraftSystem(fmt.Sprintf("kvraft, replicating on %v heartbeats", reportHeartbeat), reportHeartbeat, true)
	kvLabHeartbeat = kvraftSystem(fmt.Sprintf("kvraft, replicating on %v heartbeats", raft.LabConfig().Heartbeat), raft.LabConfig().Heartbeat, true)
	kvStart        = kvraftSystem("kvraft, replicating on Start", 0, false)
	frangipaniLock = frangipaniSystem("frangipani, locks only", true)
	frangipaniKV   = frangipaniSystem("frangipani", false)
)

func frangipaniSystems() []kvSystem {
	return []kvSystem{kvHeartbeat, kvStart, frangipaniLock, frangipaniKV}
}

// A sysEnv is one world running a kvSystem on the experiments' network.
type sysEnv struct {
	w       *sim.World
	c       *cluster.Cluster
	sys     kvSystem
	clients int
}

// start builds the system's servers on a world of its own.
func (s kvSystem) start(seed int64, replicas, maxraftstate int) (*sysEnv, error) {
	w := sim.NewWorld(seed)
	cfg, err := s.cluster(replicas, maxraftstate)
	if err != nil {
		return nil, err
	}
	c, err := newCluster(w, cfg, network())
	if err != nil {
		return nil, err
	}
	return &sysEnv{w: w, c: c, sys: s}, nil
}

// client returns a client on a host of its own.
func (e *sysEnv) client() (workload.KV, error) {
	e.clients++
	return e.sys.clerk(e.c, e.c.NewClient(fmt.Sprintf("client%d", e.clients)))
}

// newClients returns n clients, each on a host of its own.
func (e *sysEnv) newClients(n int) ([]workload.KV, error) {
	clients := make([]workload.KV, n)
	for i := range clients {
		var err error
		if clients[i], err = e.client(); err != nil {
			return nil, err
		}
	}
	return clients, nil
}

// settle has ck put a key of its own, so that a leader is in place (and,
// for frangipani, that key's lock is ck's and no other's).
func (e *sysEnv) settle(ck workload.KV) error {
	done := false
	ck.Put("settle", "", func() { done = true })
	if !e.w.RunUntil(func() bool { return done }, time.Minute) {
		return fmt.Errorf("%s: no Put completed within a minute of virtual time", e.sys.name)
	}
	return nil
}

// rpcs returns how many RPCs the network has carried.
func (e *sysEnv) rpcs() int { return e.c.Net().GetTotalCount() }

// A load is what clients did over a window of virtual time.
type load struct {
	ops  int
	rpcs int
	took time.Duration
}

// perSecond returns the operations per virtual second.
func (l load) perSecond() float64 { return float64(l.ops) / l.took.Seconds() }

// run runs clients doing spec for d and counts the operations that
// complete within it, and the RPCs sent.
func (e *sysEnv) run(clients []workload.KV, spec workload.Spec, d time.Duration) load {
	l := load{rpcs: e.rpcs(), took: d}
	end := e.w.Now() + d
	done := spec.Done
	spec.Done = func(client int, kind workload.Kind, start, at time.Duration) {
		if at <= end {
			l.ops++
		}
		if done != nil {
			done(client, kind, start, at)
		}
	}
	run := workload.Start(e.w, clients, spec)
	e.w.Run(d)
	run.Stop()
	l.rpcs = e.rpcs() - l.rpcs
	return l
}

// basicMix is the basic test's: Gets, Puts and Appends alike, so that
// Puts keep a value short however many Appends a cache serves.
var basicMix = workload.Mix{Get: 1, Put: 1, Append: 1}

// basic runs the report's basic test on a system of replicas servers:
// one client on one key, operations back to back on a reliable network,
// for d.
func (s kvSystem) basic(seed int64, replicas int, d time.Duration) (load, error) {
	e, ck, err := s.oneClient(seed, replicas)
	if err != nil {
		return load{}, err
	}
	return e.run([]workload.KV{ck}, workload.Spec{Mix: basicMix, Keys: workload.Own()}, d), nil
}

// oneClient starts replicas servers that never snapshot and one client,
// once a leader is in place.
func (s kvSystem) oneClient(seed int64, replicas int) (*sysEnv, workload.KV, error) {
	e, err := s.start(seed, replicas, -1)
	if err != nil {
		return nil, nil, err
	}
	ck, err := e.client()
	if err != nil {
		return nil, nil, err
	}
	return e, ck, e.settle(ck)
}

// speed runs the report's speed test on a system of replicas servers: n
// Appends to one key, one after another.
func (s kvSystem) speed(seed int64, replicas, n int) (load, error) {
	e, ck, err := s.oneClient(seed, replicas)
	if err != nil {
		return load{}, err
	}
	l := load{rpcs: e.rpcs()}
	start := e.w.Now()
	var next func()
	next = func() {
		if l.ops < n {
			ck.Append("k", "x", func() { l.ops++; next() })
		}
	}
	next()
	if !e.w.RunUntil(func() bool { return l.ops == n }, time.Hour) {
		return load{}, fmt.Errorf("%s: %d Appends did not finish within an hour of virtual time", s.name, n)
	}
	l.took, l.rpcs = e.w.Now()-start, e.rpcs()-l.rpcs
	return l, nil
}
