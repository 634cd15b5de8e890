// Package frangipanitest deploys frangipani on the testbed (as
// net/http/httptest sits beside net/http): lock servers as a cluster
// group, caching clerks as key/value clients of the testbed's workloads,
// the check that no clerk lost a write, the bound within which progress
// must come after a heal, and Spec, the shape of the lock scenarios that
// the sweeps and frangipani's own tests run.
package frangipanitest

import (
	"fmt"

	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// A Deployment is frangipani's lock service, one group ("locks", group
// 0) of Replicas lock servers each on a host of its own, and the
// configuration its clerks share.
type Deployment struct {
	Replicas int
	Config   frangipani.Config
}

// Cluster returns the cluster configuration of the deployment.
func (d Deployment) Cluster() (cluster.Config, error) {
	if d.Replicas < 1 {
		return cluster.Config{}, fmt.Errorf("frangipanitest: frangipani with %d lock servers", d.Replicas)
	}
	return cluster.Config{Groups: []cluster.Group{{Name: "locks", Replicas: d.Replicas, Factory: d.server}}}, nil
}

func (d Deployment) server(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
	s, err := frangipani.StartLockServer(n.Host, n.Peers, n.Me, n.Persister, d.Config)
	if err != nil {
		return nil, nil, err
	}
	return s, s.Services(), nil
}

// Clerk returns a caching clerk of the deployment on c, on client host h
// (made by c.NewClient), with ends to every lock server.
func (d Deployment) Clerk(c *cluster.Cluster, h *sim.Host) (*frangipani.Clerk, error) {
	return frangipani.MakeClerk(h, c.Ends(h, 0, nil), d.Config)
}

// Clerks makes a run's caching clerks for the testbed's key/value
// workload (testbed.KV's Clerk) and keeps them, so that NoneLost can ask
// each whether it lost a write. Make one per run.
type Clerks struct {
	Config frangipani.Config
	made   []*frangipani.Clerk
}

// Make returns a new caching clerk on host, talking to servers, as a
// key/value client. A configuration the clerk refuses panics (the lock
// servers refuse it first, when the cluster is built).
func (cs *Clerks) Make(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV {
	ck, err := frangipani.MakeClerk(host, servers, cs.Config)
	must(err)
	cs.made = append(cs.made, ck)
	return CachingKV{Clerk: ck}
}

// NoneLost is the check that no clerk lost the unflushed writes of a lock
// (the lock service broke it after BreakAfter of the holder's silence).
func (cs *Clerks) NoneLost(*testbed.Env) (testbed.Verdict, error) {
	for i, ck := range cs.made {
		if n := ck.Lost(); n > 0 {
			return testbed.Verdict{Problem: fmt.Sprintf("clerk %d lost the unflushed writes of %d locks", i, n)}, nil
		}
	}
	return testbed.Verdict{}, nil
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
