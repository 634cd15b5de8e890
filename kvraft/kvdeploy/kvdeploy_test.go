package kvdeploy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

// TestFactoryDeploysTheService deploys three servers and has a clerk
// write and read through them; a configuration the service refuses is an
// error of the deployment, naming it.
func TestFactoryDeploysTheService(t *testing.T) {
	w := sim.NewWorld(1)
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: 3, Factory: Factory(-1, kvraft.Options{Raft: raft.LabConfig()})}}})
	require.NoError(t, err)
	host := c.NewClient("clerk")
	ck := kvraft.MakeClerk(host, c.Ends(host, 0, nil))
	var got string
	done := false
	ck.Put("k", "v", func() {
		ck.Get("k", func(v string, _ int64) { got, done = v, true })
	})
	require.True(t, w.RunUntil(func() bool { return done }, 10*time.Second))
	assert.Equal(t, "v", got)

	bad := raft.LabConfig()
	bad.ElectionMin = 0
	_, err = cluster.New(sim.NewWorld(1), cluster.Config{Groups: []cluster.Group{{Name: "kv", Replicas: 1, Factory: Factory(-1, kvraft.Options{Raft: bad})}}})
	require.Error(t, err)
}
