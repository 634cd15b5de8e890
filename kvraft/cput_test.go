package kvraft_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvdeploy"
	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

func TestConditionalPut(t *testing.T) { runScenario(t, conditionalPut) }

// conditionalPut has five clerks each add one to a counter ten times with
// read-modify-write loops (Get, then CPut on the version read) over an
// unreliable network: no increment may be lost or doubled.
func conditionalPut(t simtest.T, seed int64, opts kvraft.Options) *kvtest.Harness {
	const clients, increments = 5, 10
	cfg := makeConfig(t, seed, 5, true, -1, opts)
	done := 0
	for range clients {
		ck := cfg.MakeClient(cfg.All())
		left := increments
		var incr func()
		incr = func() {
			if left == 0 {
				done++
				return
			}
			ck.GetAsync("counter", func(v string) {
				n, _ := strconv.Atoi(v)
				_, version := ck.LastRead()
				ck.CPutAsync("counter", strconv.Itoa(n+1), version, func(ok bool) {
					if ok {
						left--
					}
					incr()
				})
			})
		}
		incr()
	}
	if !cfg.World().RunUntil(func() bool { return done == clients }, kvtest.OpLimit) {
		t.Fatalf("the clerks did not finish")
	}
	if v := cfg.MakeClient(cfg.All()).Get("counter"); v != strconv.Itoa(clients*increments) {
		t.Fatalf("counter is %q after %d increments", v, clients*increments)
	}
	cfg.CheckLinearizable()
	return cfg
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		maxraftstate int
		opts         func(o *kvraft.Options)
		want         string
	}{
		{0, func(*kvraft.Options) {}, "rsm: MaxRaftState 0 must be positive, or -1 for no snapshots"},
		{-1, func(o *kvraft.Options) { o.Reads = 7 }, "rsm: unknown read mode 7"},
		{-1, func(o *kvraft.Options) { o.Raft.Heartbeat = 0 }, "raft: Heartbeat 0s is not positive"},
	} {
		opts := kvraft.DefaultOptions()
		tc.opts(&opts)
		_, err := cluster.New(sim.NewWorld(1), cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: 1, Factory: kvdeploy.Factory(tc.maxraftstate, opts)}}})
		assert.EqualError(t, err, "cluster: starting kv/0: "+tc.want)
	}

	cfg := makeConfig(t, 1, 1, false, -1, kvraft.DefaultOptions())
	ck := cfg.MakeClient(cfg.All())
	ck.PutAsync("a", "b", func() {})
	assert.PanicsWithValue(t,
		"rsm: clerk "+strconv.FormatInt(clerk(ck).ID(), 10)+": KVServer.Get while KVServer.PutAppend is in progress; a clerk does one call at a time",
		func() { ck.GetAsync("a", func(string) {}) })
	assert.PanicsWithValue(t, "rsm: MakeClerk: a clerk needs at least one server, got none", func() { kvraft.MakeClerk(ck.Host(), nil) })
	assert.PanicsWithValue(t, "kvraft: MakeClerk: a nil host", func() { kvraft.MakeClerk(nil, nil) })
	assert.PanicsWithValue(t, "rsm: clerk timeout 0s is not positive", func() { clerk(ck).SetTimeout(0) })
}
