package raftchaos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim/plant"
)

// figure8 is a run of five lab-timed nodes for 30 s under every new
// leader trapped and every follower crashed as it first accepts a term's
// entries, with snapshots every 10 entries.
func figure8(t *testing.T, seed int64, cfg raft.Config) testbed.Run {
	r, err := Group{Nodes: 5, Make: raft.Maker(cfg), Snapshots: 10, Gap: 20 * time.Millisecond}.Run("figure8", seed)
	require.NoError(t, err)
	r.Nemesis.Reactive = Nemesis{Messages: RaftMessages{}, Traps: 1, CrashOnEntries: 1}.Start
	r.Length, r.Progress = 30*time.Second, 10*time.Second
	return r
}

// TestGroupAgreesUnderFigure8 runs a correct Raft under the Figure 8
// strikes: every node agrees, commands commit, and the fault log shows
// the traps and the crashes; and the run replays to the same trace.
func TestGroupAgreesUnderFigure8(t *testing.T) {
	rec, err := figure8(t, 1, raft.LabConfig()).Execute()
	require.NoError(t, err)
	require.True(t, rec.OK(), rec.Problem)
	assert.Greater(t, rec.Ops, 100, "indices agreed")
	log := rec.FaultLog.String()
	assert.Contains(t, log, "tap: the nemesis watches the replicas' messages")
	assert.Contains(t, log, "partition")
	assert.Contains(t, log, "restart")
	again, err := figure8(t, 1, raft.LabConfig()).Execute()
	require.NoError(t, err)
	assert.Equal(t, rec.Summary, again.Summary)
}

// TestGroupFindsFigure8 plants the commit rule Figure 8 warns of: a node
// applies a command another applied differently at its index, and the
// run ends there with that as its verdict.
func TestGroupFindsFigure8(t *testing.T) {
	cfg := raft.LabConfig()
	b, ok := plant.Named(raft.PlantedBugs(), "commit by counting replicas of an old-term entry")
	require.True(t, ok)
	b.Plant(&cfg)
	r := figure8(t, 1, cfg)
	rec, err := r.Execute()
	require.NoError(t, err)
	assert.Regexp(t, `^apply error: commit index=\d+ server=\d `, rec.Problem)
	assert.Less(t, rec.Summary.Now, r.Length, "the run ended at the violation")
	assert.Positive(t, rec.Ops, "how far it got")
}

// TestNemesisRefusesBadInput checks that a nemesis that cannot strike as
// given says why.
func TestNemesisRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		n    Nemesis
		want string
	}{
		{Nemesis{Traps: 1}, "a nemesis needs its Messages"},
		{Nemesis{Messages: RaftMessages{}, CrashVoters: 1.5}, "nemesis chance 1.5 is not within [0, 1]"},
		{Nemesis{Messages: RaftMessages{}, Bridges: true}, "bridge rounds with heartbeat 0s: want it positive"},
	} {
		_, err := c.n.Start(&testbed.Env{})
		assert.ErrorContains(t, err, c.want)
	}
	_, err := Group{Nodes: 0, Make: raft.Maker(raft.LabConfig()), Gap: time.Millisecond}.Run("x", 1)
	assert.ErrorContains(t, err, "logs of 0 nodes")
	r, err := Group{Nodes: 3, Make: raft.Maker(raft.LabConfig())}.Run("x", 1)
	require.NoError(t, err)
	rec, err := r.Execute()
	require.NoError(t, err)
	assert.Contains(t, rec.Problem, "a load needs its group's Logs and a positive Gap")
}
