package raft

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

// states returns what each server's host shows, by server.
func (cfg *config) states() []map[string]string {
	out := make([]map[string]string, cfg.N())
	for i := range out {
		out[i] = simtest.State(cfg.Host(i))
	}
	return out
}

func TestInspectShowsTheLeaderAndItsFollowers(t *testing.T) {
	cfg := makeConfig(t, 1, 5, false, false, LabConfig())
	leader := cfg.CheckOneLeader()
	for i := range 3 {
		cfg.One(100+i, cfg.N(), true)
	}
	cfg.Sleep(time.Second) // the followers learn the last commit
	states := cfg.states()
	term := states[leader]["raft.term"]
	leaderName := cfg.Host(leader).Name()
	for i, s := range states {
		want := "follower"
		if i == leader {
			want = "leader"
		}
		assert.Equal(t, want, s["raft.role"], "server %d", i)
		assert.Equal(t, term, s["raft.term"], "server %d", i)
		assert.Equal(t, leaderName, s["raft.leader"], "server %d follows", i)
		assert.Equal(t, "3", s["raft.log"], "server %d", i)
		assert.Equal(t, "3", s["raft.commit"], "server %d", i)
		assert.Equal(t, "3", s["raft.applied"], "server %d", i)
		assert.Equal(t, term, s["raft.lastTerm"], "server %d", i)
		assert.Equal(t, "0", s["raft.snapshot"], "server %d", i)
	}
	assert.Equal(t, leaderName, states[leader]["raft.votedFor"], "the leader voted for itself")

	follower := (leader + 1) % cfg.N()
	cfg.Crash1(follower)
	assert.Empty(t, simtest.State(cfg.Host(follower)), "a dead host shows nothing")
	cfg.Start1(follower)
	cfg.Connect(follower)
	cfg.One(200, cfg.N(), true)
	back := simtest.State(cfg.Host(follower))
	require.NotEmpty(t, back, "a restarted host shows its fresh node")
	before, _ := strconv.Atoi(term)
	after, err := strconv.Atoi(back["raft.term"])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, after, before, "the term survives a restart")
	assert.Equal(t, "4", back["raft.log"], "the log survives a restart")
}

func TestInspectNamesTheGroup(t *testing.T) {
	rc := LabConfig()
	rc.Group = "coord"
	cfg := makeConfig(t, 1, 3, false, false, rc)
	leader := cfg.CheckOneLeader()
	s := simtest.State(cfg.Host(leader))
	assert.Equal(t, "leader", s["coord/raft.role"])
	assert.NotContains(t, s, "raft.role")
	assert.Equal(t, "coord/rsm", rc.InspectAs("rsm"))
	assert.Equal(t, "rsm", LabConfig().InspectAs("rsm"))
}

// TestInspectChangesNothing holds Inspect to the seed rule: a run that
// reads every host's state after every event ends as one that does not.
func TestInspectChangesNothing(t *testing.T) {
	require.NoError(t, simtest.InspectingChangesNothing(func(run func(*sim.World, time.Duration)) *sim.World {
		cfg := makeConfig(t, 3, 3, true, true, LabConfig())
		cfg.One(1, 3, true)
		run(cfg.World(), 2*time.Second)
		cfg.One(2, 3, true)
		return cfg.World()
	}))
}

func TestInspectShowsACandidate(t *testing.T) {
	rc := LabConfig()
	rc.PreVote, rc.CheckQuorum = false, false
	cfg := makeConfig(t, 1, 3, false, false, rc)
	leader := cfg.CheckOneLeader()
	lone := (leader + 1) % 3
	cfg.Disconnect(lone)
	cfg.Sleep(2 * time.Second) // it times out and campaigns, alone
	s := simtest.State(cfg.Host(lone))
	assert.Equal(t, "candidate", s["raft.role"])
	assert.Equal(t, cfg.Host(lone).Name(), s["raft.votedFor"], "a candidate votes for itself")
	assert.Equal(t, "-", s["raft.leader"], "a candidate follows no one")
	cfg.raft(lone).Kill()
	assert.Equal(t, "killed", simtest.State(cfg.Host(lone))["raft.role"], "a node killed on a live host")
}
