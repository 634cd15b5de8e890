package shardtxn_test

import (
	"testing"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiscoveryNeedsItsDirectory refuses to start a server whose leader
// discovery and directory disagree: the replica manager with no end to a
// directory, or an end to one under paper 000's redirect.
func TestDiscoveryNeedsItsDirectory(t *testing.T) {
	for _, d := range []shardtxn.Discovery{shardtxn.Redirect, shardtxn.ReplicaManager} {
		cfg := shardtxn.DefaultConfig()
		cfg.Discovery = d
		cc, err := txntest.Deployment{Shards: 1, Replicas: 1, Config: cfg}.Cluster()
		require.NoError(t, err)
		assert.Equal(t, d == shardtxn.ReplicaManager, cc.Directory != nil, "the deployment runs a directory if its discovery asks for one")
		if cc.Directory == nil {
			cc.Directory = rsm.NewDirectoryService
		} else {
			cc.Directory = nil
		}
		_, err = cluster.New(sim.NewWorld(1), cc)
		want := "shardtxn: an end to a directory under Discovery redirect, which asks none"
		if d == shardtxn.ReplicaManager {
			want = "shardtxn: Discovery replica-manager needs an end to the directory, got nil"
		}
		assert.ErrorContains(t, err, want)
	}
	assert.Equal(t, "shard2", shardtxn.ShardGroup(2))
}
