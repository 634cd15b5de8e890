package raft

// Votes, terms and roles: one vote per term, stepping down on a higher
// term in every kind of reply, and the pre-vote and lease rules at their
// boundaries.

import (
	"testing"
	"time"

	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCandidateThatStepsDownKeepsItsVote(t *testing.T) {
	cfg := isolated(t)
	cfg.raft(1).campaign(false)  // term 1, voted for itself
	cfg.heartbeat(1, 0, 1, 0, 0) // the leader of term 1 is heard
	assert.False(t, cfg.requestVote(1, 2, 1, 0, 0, false).VoteGranted, "a second vote in term 1")
}

func TestLeaderIgnoresVoteRequestOfItsTerm(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	term, _ := cfg.raft(0).GetState()
	reply := cfg.requestVote(0, 2, term, 5, term, false)
	assert.False(t, reply.VoteGranted)
	assert.Equal(t, term, reply.Term)
	_, isLeader := cfg.raft(0).GetState()
	assert.True(t, isLeader, "a leader stepped down for a candidate of its own term")
}

func TestSimultaneousCandidates(t *testing.T) { runScenario(t, simultaneousCandidates) }

// simultaneousCandidates has two servers stand in the same term at the same
// instant, without PreVote or CheckQuorum. The third's vote decides: the
// winner must not step down when the loser refuses it, the loser must
// follow the winner, and the term must then stay put, every follower's
// timer reset by the leader's heartbeats.
func simultaneousCandidates(t simtest.T, seed int64, rc Config) *config {
	rc.PreVote, rc.CheckQuorum = false, false
	cfg := makeConfig(t, seed, 3, false, false, rc)
	cfg.Begin("Test: two candidates in one term")
	cfg.raft(0).campaign(false)
	cfg.raft(1).campaign(false)
	cfg.raft(0).flush()
	cfg.raft(1).flush()
	cfg.Sleep(10 * time.Millisecond)
	leaders := cfg.LeadersAmong(cfg.All())
	if len(leaders) != 1 {
		t.Fatalf("leaders after a split vote in term 1: %v; want one", leaders)
	}
	for range 10 {
		cfg.Sleep(rafttest.ElectionTimeout)
		for i := range 3 {
			if term, _ := cfg.raft(i).GetState(); term != 1 {
				t.Fatalf("server %d is in term %d; the leader of term 1 never lost touch", i, term)
			}
		}
	}
	cfg.One(101, 3, false)
	return cfg
}

func TestHigherTermInAVoteReply(t *testing.T) {
	for _, pre := range []bool{false, true} {
		cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
		cfg.Only()
		for range 5 {
			cfg.raft(1).campaign(false) // alone, up to term 5
		}
		cfg.Only(0, 1)
		cfg.raft(0).campaign(pre)
		cfg.raft(0).flush()
		cfg.Sleep(10 * time.Millisecond)
		term, _ := cfg.raft(0).GetState()
		assert.Equal(t, 5, term, "pre-vote %v: a candidate refused by a server in term 5", pre)
		assert.Equal(t, follower, cfg.raft(0).role)
	}
}

func TestHigherTermInAnAppendReply(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	cfg.Only(1, 2)
	cfg.elect(1)
	cfg.elect(1) // term 3 at least
	term1, _ := cfg.raft(1).GetState()
	cfg.Only(0, 2) // the old leader of term 1 hears 2, now in a later term
	cfg.Sleep(LabConfig().Heartbeat + 10*time.Millisecond)
	term0, isLeader := cfg.raft(0).GetState()
	assert.False(t, isLeader)
	assert.Equal(t, term1, term0)
}

func TestHigherTermInASnapshotReply(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, true, scripted(LabConfig()))
	cfg.elect(0)
	cfg.Only(0, 1)
	for i := 1; i <= rafttest.SnapshotInterval+1; i++ {
		cfg.One(i, 2, false)
	}
	cfg.Only()
	for range 5 {
		cfg.raft(2).campaign(false)
	}
	term2, _ := cfg.raft(2).GetState()
	cfg.Only(0, 1, 2) // 0 must send 2 a snapshot, and hears of 2's term
	cfg.Sleep(LabConfig().Heartbeat + 10*time.Millisecond)
	term, isLeader := cfg.raft(0).GetState()
	assert.False(t, isLeader)
	assert.Equal(t, term2, term)
}

func TestLeaderStaysAfterInstallingASnapshot(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, true, scripted(LabConfig()))
	cfg.elect(0)
	term, _ := cfg.raft(0).GetState()
	cfg.Only(0, 1)
	for i := 1; i <= rafttest.SnapshotInterval+1; i++ {
		cfg.One(i, 2, false)
	}
	cfg.Only(0, 1, 2)
	cfg.Sleep(LabConfig().Heartbeat + 10*time.Millisecond)
	require.Equal(t, rafttest.SnapshotInterval, cfg.raft(2).log.base, "server 2 got no snapshot")
	term0, isLeader := cfg.raft(0).GetState()
	assert.True(t, isLeader, "the leader stepped down after a snapshot was installed in its term")
	assert.Equal(t, term, term0)
}

func TestPreVoteOnlyForAHigherTerm(t *testing.T) {
	cfg := isolated(t)
	cfg.heartbeat(2, 0, 3, 0, 0)
	assert.False(t, cfg.requestVote(2, 1, 3, 0, 0, true).VoteGranted, "a pre-vote for the voter's own term")
	assert.True(t, cfg.requestVote(2, 1, 4, 0, 0, true).VoteGranted)
	term, _ := cfg.raft(2).GetState()
	assert.Equal(t, 3, term, "a pre-vote changed the term")
}

// leased returns an isolated 3-server cluster with CheckQuorum on, and
// election timers that never fire during a test.
func leased(t *testing.T) (*config, Config) {
	rc := scripted(LabConfig())
	rc.CheckQuorum = true
	rc.ElectionMax = 2 * rc.ElectionMin
	cfg := makeConfig(t, 1, 3, false, false, rc)
	cfg.Only()
	return cfg, rc
}

func TestLeaseRefusesOnlyHigherTerms(t *testing.T) {
	cfg, _ := leased(t)
	cfg.heartbeat(2, 0, 3, 0, 0)
	assert.False(t, cfg.requestVote(2, 1, 4, 0, 0, false).VoteGranted, "a vote against a leader just heard")
	assert.True(t, cfg.requestVote(2, 1, 3, 0, 0, false).VoteGranted, "the lease held off a vote in the leader's own term")
}

func TestLeaseLastsElectionMin(t *testing.T) {
	cfg, rc := leased(t)
	cfg.heartbeat(2, 0, 3, 0, 0)
	cfg.Sleep(rc.ElectionMin - 1)
	assert.False(t, cfg.requestVote(2, 1, 4, 0, 0, true).VoteGranted, "the lease ended before ElectionMin")
	cfg.Sleep(1)
	assert.True(t, cfg.requestVote(2, 1, 4, 0, 0, true).VoteGranted, "the lease outlasted ElectionMin")
}
