package raft

// Durability: every change to the term, the vote or the log must be on
// disk before the event that made it ends, since the host can die right
// after. Each test isolates a server, makes one change by calling its
// handler (as the network would), kills its host before any other event
// runs, restarts it, and checks the change is still there.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isolated returns a scripted 3-server cluster in which no server hears
// any other.
func isolated(t *testing.T) *config {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.Only()
	return cfg
}

// heartbeat delivers an AppendEntries without entries from leader to
// server i.
func (cfg *config) heartbeat(i, leader, term, prev, prevTerm int) *AppendEntriesReply {
	reply := &AppendEntriesReply{}
	cfg.raft(i).AppendEntries(&AppendEntriesArgs{Term: term, LeaderID: leader, PrevLogIndex: prev, PrevLogTerm: prevTerm}, reply)
	return reply
}

// appendEntries delivers entries after prev from leader to server i.
func (cfg *config) appendEntries(i, leader, term, prev, prevTerm, commit int, es ...Entry) *AppendEntriesReply {
	reply := &AppendEntriesReply{}
	cfg.raft(i).AppendEntries(&AppendEntriesArgs{Term: term, LeaderID: leader, PrevLogIndex: prev, PrevLogTerm: prevTerm, Entries: es, LeaderCommit: commit}, reply)
	return reply
}

// requestVote delivers a vote request from candidate to server i.
func (cfg *config) requestVote(i, candidate, term, lastIndex, lastTerm int, pre bool) *RequestVoteReply {
	reply := &RequestVoteReply{}
	cfg.raft(i).RequestVote(&RequestVoteArgs{Term: term, CandidateID: candidate, LastLogIndex: lastIndex, LastLogTerm: lastTerm, PreVote: pre}, reply)
	return reply
}

// restart crashes server i and starts it again from its disk.
func (cfg *config) restart(i int) *Raft {
	cfg.Start1(i)
	return cfg.raft(i)
}

func TestVoteIsDurable(t *testing.T) {
	cfg := isolated(t)
	cfg.heartbeat(2, 0, 5, 0, 0) // server 2 learns term 5 from a leader: no vote yet
	require.True(t, cfg.requestVote(2, 1, 5, 0, 0, false).VoteGranted)
	cfg.restart(2)
	assert.False(t, cfg.requestVote(2, 0, 5, 0, 0, false).VoteGranted, "a second vote in term 5 after a crash")
	assert.True(t, cfg.requestVote(2, 1, 5, 0, 0, false).VoteGranted, "the vote for 1 is forgotten")
}

func TestTermAdoptedFromAVoteRequestIsDurable(t *testing.T) {
	cfg := isolated(t)
	cfg.appendEntries(2, 0, 1, 0, 0, 0, Entry{1, "a"})
	// A candidate with a shorter log: refused, but its term is adopted.
	reply := cfg.requestVote(2, 1, 7, 0, 0, false)
	require.False(t, reply.VoteGranted)
	require.Equal(t, 7, reply.Term)
	term, _ := cfg.restart(2).GetState()
	assert.Equal(t, 7, term)
}

func TestHigherTermFromALeaderAdoptedAndDurable(t *testing.T) {
	cfg := isolated(t)
	cfg.heartbeat(2, 0, 1, 0, 0)
	reply := cfg.appendEntries(2, 0, 3, 0, 0, 0, Entry{3, "a"})
	require.True(t, reply.Success)
	assert.Equal(t, 3, reply.Term, "the reply carries the term the follower adopted")
	term, _ := cfg.raft(2).GetState()
	assert.Equal(t, 3, term, "a follower took entries of term 3 and stayed in term 1")
	term, _ = cfg.restart(2).GetState()
	assert.Equal(t, 3, term)
}

func TestAppendedEntriesAreDurable(t *testing.T) {
	cfg := isolated(t)
	cfg.heartbeat(2, 0, 1, 0, 0)
	require.True(t, cfg.appendEntries(2, 0, 1, 0, 0, 0, Entry{1, "a"}, Entry{1, "b"}).Success)
	rf := cfg.restart(2)
	assert.Equal(t, []Entry{{}, {1, "a"}, {1, "b"}}, rf.log.entries)

	// A leader of term 2 replaces the conflicting entry 2.
	cfg.heartbeat(2, 1, 2, 0, 0)
	require.True(t, cfg.appendEntries(2, 1, 2, 1, 1, 0, Entry{2, "c"}).Success)
	rf = cfg.restart(2)
	assert.Equal(t, []Entry{{}, {1, "a"}, {2, "c"}}, rf.log.entries)
}

func TestStartedEntryIsDurable(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	cfg.Only()
	index, term, ok := cfg.raft(0).Start("x")
	require.True(t, ok)
	rf := cfg.restart(0)
	assert.Equal(t, Entry{term, "x"}, rf.log.entry(index))
}

func TestCandidacyIsDurable(t *testing.T) {
	cfg := isolated(t)
	cfg.raft(1).campaign(false)
	cfg.raft(1).flush()
	term, _ := cfg.restart(1).GetState()
	assert.Equal(t, 1, term)
	assert.False(t, cfg.requestVote(1, 2, 1, 0, 0, false).VoteGranted, "a candidate that restarted voted again in its term")
}

func TestSnapshotIsDurable(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := 1; i <= 3; i++ {
		cfg.One(i, 3, false)
	}
	cfg.Only()
	cfg.raft(1).Snapshot(2, []byte("state at 2"))
	rf := cfg.restart(1)
	assert.Equal(t, []byte("state at 2"), rf.snapshot)
	assert.Equal(t, 2, rf.log.base)
	assert.Equal(t, []Entry{{Term: 1}, {1, 3}}, rf.log.entries)
}

func TestInstalledSnapshotIsDurable(t *testing.T) {
	cfg := isolated(t)
	cfg.heartbeat(2, 0, 1, 0, 0)
	cfg.raft(2).InstallSnapshot(&InstallSnapshotArgs{Term: 1, LeaderID: 0, LastIncludedIndex: 5, LastIncludedTerm: 1, Data: []byte("state at 5")}, &InstallSnapshotReply{})
	rf := cfg.restart(2)
	assert.Equal(t, []byte("state at 5"), rf.snapshot)
	assert.Equal(t, 5, rf.log.last())
}

// A lost AppendEntries sends the leader back to resend its entries, never
// below what the follower is known to hold: a resend from below the match
// could fall below the log's start and send a snapshot the follower does
// not need (log ordering's nodes cannot use another node's snapshot; its
// swarm's seed 6429 restarted a node from one).
func TestLostAppendNeverResendsBelowTheMatch(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, LabConfig())
	for i := range 5 {
		cfg.One(100+i, 3, true)
	}
	leader := cfg.raft(cfg.CheckOneLeader())
	p := (leader.me + 1) % 3
	require.GreaterOrEqual(t, leader.matchIndex[p], 5)
	leader.Snapshot(leader.matchIndex[p], []byte("snapshot"))
	require.Equal(t, leader.matchIndex[p], leader.log.base)
	// A call sent from the start of the log, carried and then lost.
	c := &appendCall{rf: leader, p: p, id: leader.track(p), args: AppendEntriesArgs{Term: leader.term, LeaderID: leader.me, PrevLogIndex: 0}}
	leader.appendAnswered(c, false)
	assert.Equal(t, leader.matchIndex[p]+1, leader.nextIndex[p], "resent from after the match, not from the start")
	assert.Greater(t, leader.nextIndex[p], leader.log.base, "no snapshot")
}
