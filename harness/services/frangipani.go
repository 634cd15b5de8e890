package services

import (
	"fmt"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// Frangipani describes a frangipani deployment: one lock service group
// ("locks", group 0) of Replicas replicas, each on a host of its own.
type Frangipani struct {
	Replicas int
	Config   frangipani.Config
}

// Cluster returns the cluster configuration of the deployment.
func (d Frangipani) Cluster() (cluster.Config, error) {
	if d.Replicas < 1 {
		return cluster.Config{}, fmt.Errorf("services: frangipani with %d lock servers", d.Replicas)
	}
	return cluster.Config{Groups: []cluster.Group{{Name: "locks", Replicas: d.Replicas, Factory: d.server}}}, nil
}

func (d Frangipani) server(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
	s, err := frangipani.StartLockServer(n.Host, n.Peers, n.Me, n.Persister, d.Config)
	if err != nil {
		return nil, nil, err
	}
	return s, s.Services(), nil
}

// Clerk returns a caching clerk of the deployment on c, on client host h
// (made by c.NewClient), with ends to every lock server.
func (d Frangipani) Clerk(c *cluster.Cluster, h *sim.Host) (*frangipani.Clerk, error) {
	return frangipani.MakeClerk(h, c.Ends(h, 0, nil), d.Config)
}

// CachingKV runs the key/value workloads (workload.KV) on a frangipani
// clerk. An operation the clerk refuses (bad input) or fails (a lock
// server's answer that made no sense, an append past MaxValue) panics, as
// the workloads make none and have no way to record a failure: a sweep
// reports the panic as the seed's verdict.
type CachingKV struct{ *frangipani.Clerk }

// Get is workload.KV's Get.
func (c CachingKV) Get(key string, done func(value string, version int64)) {
	must(c.Clerk.Get(key, func(value string, version int64, err error) {
		must(err)
		done(value, version)
	}))
}

// Put is workload.KV's Put.
func (c CachingKV) Put(key, value string, done func()) { must(c.Clerk.Put(key, value, wrote(done))) }

// Append is workload.KV's Append.
func (c CachingKV) Append(key, value string, done func()) {
	must(c.Clerk.Append(key, value, wrote(done)))
}

// wrote is a write's callback: done, unless the write failed.
func wrote(done func()) func(error) {
	return func(err error) {
		must(err)
		done()
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
