package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvdeploy"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// gigabit is a 1 Gbit/s uplink, in bytes per second.
const gigabit = 125_000_000

// paperSizes are the cluster sizes of the Raft-KV-with-ChaosMonkey paper.
func paperSizes() []int { return []int{5, 11, 17, 23, 31} }

// serviceTime is the CPU cost of handling one message in the experiments.
const serviceTime = 20 * time.Microsecond

// timerNoise is how late the servers' timers may fire in the experiments.
const timerNoise = time.Millisecond

// snapshotAt is the Raft state, in bytes, at which the experiments'
// servers snapshot: it bounds each server's log, which otherwise grows by
// every Put of a run (a gigabyte of memory for the 31-server runs of
// concurrency, and a fifth more CPU time).
const snapshotAt = 1 << 20

// network returns the experiments' network: the lab's LAN latency, a
// 1 Gbit/s uplink per host so that large values cost time, and 20 µs of
// CPU per message so that a busy leader saturates.
func network() labrpc.Params {
	p := labrpc.DefaultParams()
	p.Bandwidth = gigabit
	p.ServiceTime = serviceTime
	return p
}

// uplinkSpeed is network()'s uplink speed as captions give it ("1
// Gbit/s").
func uplinkSpeed() string {
	return fmt.Sprintf("%g Gbit/s", float64(network().Bandwidth)*8/1e9)
}

// messageCPU is network()'s CPU cost of one message as captions give it
// ("20 µs").
func messageCPU() string {
	return fmt.Sprintf("%g µs", float64(network().ServiceTime)/float64(time.Microsecond))
}

// electionWindow is rc's election timeout as captions give it ("500-1000
// ms").
func electionWindow(rc raft.Config) string {
	return fmt.Sprintf("%d-%d ms", rc.ElectionMin.Milliseconds(), rc.ElectionMax.Milliseconds())
}

// An env is one experiment world: a key/value cluster and a ChaosMonkey on
// its servers.
type env struct {
	w *sim.World
	c *cluster.Cluster
	m *chaos.Monkey

	clerks int
}

// newEnv builds n servers with Raft config rc on network p, snapshotting
// at snapshotAt bytes, their timers firing up to timerNoise late.
func newEnv(seed int64, n int, rc raft.Config, p labrpc.Params) (*env, error) {
	return newEnvSnapshot(seed, n, rc, p, snapshotAt)
}

// newEnvSnapshot is newEnv with servers that snapshot at maxraftstate
// bytes of Raft state (-1: never).
func newEnvSnapshot(seed int64, n int, rc raft.Config, p labrpc.Params, maxraftstate int) (*env, error) {
	w := sim.NewWorld(seed)
	opts := kvraft.Options{Reads: rsm.ReadLog, Raft: rc}
	c, err := newCluster(w, cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: n, Factory: kvdeploy.Factory(maxraftstate, opts)}}}, p)
	if err != nil {
		return nil, err
	}
	return &env{w: w, c: c, m: c.Monkey()}, nil
}

// newCluster builds cfg on w, on network p, the servers' timers firing up
// to timerNoise late.
func newCluster(w *sim.World, cfg cluster.Config, p labrpc.Params) (*cluster.Cluster, error) {
	c, err := cluster.New(w, cfg)
	if err != nil {
		return nil, err
	}
	for _, h := range c.Hosts() {
		if err := h.SetTimerNoise(timerNoise); err != nil {
			return nil, err
		}
	}
	if err := c.Net().SetParams(p); err != nil {
		return nil, err
	}
	return c, nil
}

// buildCluster builds a world from seed and the deployment's cluster on
// it, on the experiments' network.
func buildCluster(seed int64, deployment func() (cluster.Config, error)) (*sim.World, *cluster.Cluster, error) {
	cfg, err := deployment()
	if err != nil {
		return nil, nil, err
	}
	w := sim.NewWorld(seed)
	c, err := newCluster(w, cfg, network())
	return w, c, err
}

// clerk returns a clerk on a host of its own, talking to every server.
func (e *env) clerk() *kvraft.Clerk {
	e.clerks++
	host := e.c.NewClient(fmt.Sprintf("clerk%d", e.clerks))
	return kvraft.MakeClerk(host, e.c.Ends(host, 0, nil))
}

// put runs the world until ck's Put completes or limit passes, and returns
// how long it took.
func (e *env) put(ck *kvraft.Clerk, key, value string, limit time.Duration) (time.Duration, bool) {
	start, done := e.w.Now(), false
	ck.Put(key, value, func() { done = true })
	ok := e.w.RunUntil(func() bool { return done }, limit)
	return e.w.Now() - start, ok
}

// settle waits for the service to take a Put, so that a leader is in place.
func (e *env) settle(ck *kvraft.Clerk) error {
	if _, ok := e.put(ck, "settle", "", time.Minute); !ok {
		return fmt.Errorf("no Put completed within a minute of virtual time")
	}
	return nil
}

// leader returns a server that leads with a majority behind it: more
// than half of all servers, counting itself, are in its term and connected
// to it both ways. A server cut off from the rest may still believe it
// leads; it is passed over.
func (e *env) leader() (int, bool) {
	n := e.c.Replicas(0)
	for l := range n {
		kv := e.c.Replica(0, l)
		if kv == nil {
			continue
		}
		term, leads := kv.GetState()
		if !leads {
			continue
		}
		agree := 0
		for i := range n {
			if r := e.c.Replica(0, i); r != nil && (i == l || e.m.Connected(l, i) && e.m.Connected(i, l)) {
				if t, _ := r.GetState(); t == term {
					agree++
				}
			}
		}
		if agree > n/2 {
			return l, true
		}
	}
	return 0, false
}

// putters are clerks that each keep one Put outstanding on a key of
// their own until stopped, recording when each Put completed and how long
// it took.
type putters struct {
	run       *workload.Run
	stopped   bool
	completed []time.Duration
	latency   []time.Duration
}

// startPutters starts n clerks putting values of size bytes.
func (e *env) startPutters(n, size int) *putters {
	p := &putters{}
	clients := make([]workload.KV, n)
	for i := range clients {
		clients[i] = e.clerk()
	}
	p.run = workload.Start(e.w, clients, workload.Spec{
		Mix: workload.Mix{Put: 1}, Keys: workload.Own(), ValueSize: size,
		Done: func(_ int, _ workload.Kind, start, end time.Duration) {
			if !p.stopped {
				p.completed = append(p.completed, end)
				p.latency = append(p.latency, end-start)
			}
		},
	})
	return p
}

// stop stops recording and asks the clerks to stop.
func (p *putters) stop() {
	p.stopped = true
	p.run.Stop()
}

func millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// setDisks gives every server host of c a disk whose every write takes d
// (sim.Host.SetDiskLatency: a save waits for the disk's next write, which
// carries every save made meanwhile, and a host's messages wait for the
// saves it made before them), but for the messages of methods beginning
// with one of exempt (labrpc.Network.SetDiskExempt): answers to reads of
// state a quorum has already written.
func setDisks(c *cluster.Cluster, d time.Duration, exempt ...string) error {
	for _, h := range c.Hosts() {
		if err := h.SetDiskLatency(d); err != nil {
			return err
		}
	}
	c.Net().SetDiskExempt(exempt...)
	return nil
}
