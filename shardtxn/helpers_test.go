package shardtxn_test

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/require"
)

// deployment is a shardtxn service on a world, as the tests build it.
type deployment struct {
	w *sim.World
	c *cluster.Cluster
	d txntest.Deployment
}

func deploy(t simtest.T, seed int64, d txntest.Deployment) *deployment {
	t.Helper()
	w := sim.NewWorld(seed)
	cfg, err := d.Cluster()
	require.NoError(t, err)
	c, err := cluster.New(w, cfg)
	require.NoError(t, err)
	return &deployment{w: w, c: c, d: d}
}

// discovery, if set ("replica-manager"), runs every deployment the tests
// build under that leader discovery instead of the default:
//
//	go test ./shardtxn -discovery replica-manager
var discovery = flag.String("discovery", "", "leader discovery of the tests' deployments: redirect or replica-manager (default: the Config's)")

// standard is three shards and a coordinator group of three replicas each,
// placed on three shared hosts as paper 000 deployed them.
func standard(cfg shardtxn.Config) txntest.Deployment {
	return txntest.Deployment{Shards: 3, Replicas: 3, Shared: true, Config: discovered(cfg)}
}

// discovered is cfg with the leader discovery -discovery asks for.
func discovered(cfg shardtxn.Config) shardtxn.Config {
	switch *discovery {
	case "":
	case shardtxn.Redirect.String():
		cfg.Discovery = shardtxn.Redirect
	case shardtxn.ReplicaManager.String():
		cfg.Discovery = shardtxn.ReplicaManager
	default:
		panic(fmt.Sprintf("-discovery %q is not %v or %v", *discovery, shardtxn.Redirect, shardtxn.ReplicaManager))
	}
	return cfg
}

// run runs one transaction to its end, or fails t after limit.
func (d *deployment) run(t simtest.T, ck *shardtxn.Clerk, ops ...shardtxn.Op) shardtxn.Outcome {
	t.Helper()
	var out *shardtxn.Outcome
	require.NoError(t, ck.Txn(ops, func(o shardtxn.Outcome) { out = &o }))
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, 30*time.Second), "transaction %v did not end", ops)
	return *out
}

// wait runs the world until f has called its done, or fails t.
func (d *deployment) wait(t simtest.T, what string, f func(done func(shardtxn.Outcome)) error) shardtxn.Outcome {
	t.Helper()
	var out *shardtxn.Outcome
	require.NoError(t, f(func(o shardtxn.Outcome) { out = &o }))
	require.True(t, d.w.RunUntil(func() bool { return out != nil }, 60*time.Second), "%s did not end", what)
	return *out
}

// drained reports whether every live replica has nothing pending (see
// txntest.Deployment.Drained).
func (d *deployment) drained() bool { return d.d.Drained(d.c) }

// eachVariant runs body as a subtest under each variant of paper 000's
// and paper 003's options (txntest.Variants), paper 000's first.
func eachVariant(t *testing.T, body func(t *testing.T, cfg shardtxn.Config)) {
	for _, v := range txntest.Variants() {
		t.Run(v.String(), func(t *testing.T) {
			t.Parallel()
			body(t, config(v))
		})
	}
}

// config is shardtxn's default configuration with v's options.
func config(v txntest.Variant) shardtxn.Config {
	cfg := shardtxn.DefaultConfig()
	cfg.Conflicts, cfg.Presumption = v.Conflicts, v.Presumption
	return cfg
}

func result(t *testing.T, d *deployment) simtest.Result {
	return simtest.Result{World: d.w, Hosts: len(d.w.Hosts()), RPCs: d.c.Net().GetTotalCount(), Bytes: d.c.Net().GetTotalBytes()}
}
