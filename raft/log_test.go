package raft

// The log, fast backtracking and the handlers' edge cases, one rule at a
// time.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logOf returns a log after base (of term baseTerm) with entries of the
// given terms, each command its index.
func logOf(base, baseTerm int, terms ...int) raftLog {
	l := newLog(nil)
	l.compact(base, baseTerm)
	for i, t := range terms {
		l.append(Entry{t, base + 1 + i})
	}
	return l
}

func TestTermBoundaries(t *testing.T) {
	// Figure 7's leader: indexes 1..10 of terms 1 1 1 4 4 5 5 6 6 6.
	l := logOf(0, 0, 1, 1, 1, 4, 4, 5, 5, 6, 6, 6)
	for i, want := range []int{1: 1, 2: 1, 3: 1, 4: 4, 5: 4, 6: 6, 7: 6, 8: 8, 9: 8, 10: 8} {
		if i > 0 {
			assert.Equal(t, want, l.firstOfTerm(i), "first of the term of %d", i)
		}
	}
	for term, want := range map[int]int{1: 3, 2: -1, 4: 5, 5: 7, 6: 10, 7: -1} {
		assert.Equal(t, want, l.lastOfTerm(term), "last of term %d", term)
	}

	// After a snapshot whose last entry has term 1, entries 3..5 of terms
	// 1 1 2: the snapshot's last entry is not the first of its term, nor
	// the last.
	l = logOf(2, 1, 1, 1, 2)
	assert.Equal(t, 3, l.firstOfTerm(4))
	assert.Equal(t, 4, l.lastOfTerm(1))
	l = logOf(2, 1, 2)
	assert.Equal(t, -1, l.lastOfTerm(1))
}

func TestBacktrack(t *testing.T) {
	rf := &Raft{log: logOf(0, 0, 1, 1, 1, 4, 4, 5, 5, 6, 6, 6)}
	for _, c := range []struct {
		reply AppendEntriesReply
		want  int
	}{
		{AppendEntriesReply{XTerm: -1, XLen: 4}, 4},             // follower short: resend from its end
		{AppendEntriesReply{XTerm: 4, XIndex: 4}, 6},            // leader has term 4: after its last
		{AppendEntriesReply{XTerm: 2, XIndex: 4}, 4},            // leader lacks term 2: the follower's first of it
		{AppendEntriesReply{XTerm: 3, XIndex: 11, XLen: 9}, 11}, // lacks term 3
	} {
		assert.Equal(t, c.want, rf.backtrack(&c.reply), "%+v", c.reply)
	}
}

func TestLogCompactKeepsLaterEntries(t *testing.T) {
	l := logOf(0, 0, 1, 1, 2, 2)
	l.compact(2, 1)
	assert.Equal(t, []Entry{{Term: 1}, {2, 3}, {2, 4}}, l.entries)
	l.truncate(4)
	assert.Equal(t, []Entry{{Term: 1}, {2, 3}}, l.entries)
	// The incrementally kept checksums are those of the bytes.
	want := logOf(2, 1, 2)
	assert.Equal(t, want.persisted(nil), l.persisted(nil))
	l.compact(3, 3) // a snapshot whose last term differs: nothing stays
	assert.Equal(t, []Entry{{Term: 3}}, l.entries)
	l.compact(9, 3) // beyond the log
	assert.Equal(t, 9, l.last())
}

func TestRejectionSaysWhereLogsDiverge(t *testing.T) {
	cfg := isolated(t)
	require.True(t, cfg.appendEntries(2, 0, 2, 0, 0, 0, Entry{1, 1}, Entry{1, 2}, Entry{2, 3}, Entry{2, 4}, Entry{2, 5}).Success)
	for _, c := range []struct {
		prev, prevTerm int
		want           AppendEntriesReply
	}{
		{7, 2, AppendEntriesReply{Term: 2, XTerm: -1, XLen: 6}},
		{4, 3, AppendEntriesReply{Term: 2, XTerm: 2, XIndex: 3}},
		{2, 2, AppendEntriesReply{Term: 2, XTerm: 1, XIndex: 1}},
	} {
		assert.Equal(t, c.want, *cfg.heartbeat(2, 0, 2, c.prev, c.prevTerm), "prev %d of term %d", c.prev, c.prevTerm)
	}
}

func TestAppendReachingIntoTheSnapshot(t *testing.T) {
	cfg := isolated(t)
	cfg.raft(2).InstallSnapshot(&InstallSnapshotArgs{Term: 1, LeaderID: 0, LastIncludedIndex: 5, LastIncludedTerm: 1}, &InstallSnapshotReply{})
	// A late AppendEntries from before the snapshot: entries 4..7.
	reply := cfg.appendEntries(2, 0, 1, 3, 1, 0, Entry{1, 4}, Entry{1, 5}, Entry{1, 6}, Entry{1, 7})
	assert.True(t, reply.Success)
	assert.Equal(t, []Entry{{Term: 1}, {1, 6}, {1, 7}}, cfg.raft(2).log.entries)
	// One that ends inside it changes nothing.
	assert.True(t, cfg.appendEntries(2, 0, 1, 1, 1, 0, Entry{1, 2}).Success)
	assert.Equal(t, []Entry{{Term: 1}, {1, 6}, {1, 7}}, cfg.raft(2).log.entries)
}

func TestCommitIndexFromTheLeader(t *testing.T) {
	cfg := isolated(t)
	cfg.appendEntries(2, 0, 1, 0, 0, 1, Entry{1, 1}, Entry{1, 2}, Entry{1, 3})
	assert.Equal(t, 1, cfg.raft(2).commitIndex)
	// The leader has committed more than it sent: the follower commits
	// only what it knows matches.
	cfg.appendEntries(2, 0, 1, 0, 0, 9, Entry{1, 1}, Entry{1, 2})
	assert.Equal(t, 2, cfg.raft(2).commitIndex)
}

func TestStaleRejectionIgnored(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 5 {
		cfg.One(i, 3, false)
	}
	rf := cfg.raft(0)
	term, _ := rf.GetState()
	require.Equal(t, 5, rf.matchIndex[1])
	// A rejection of a message sent before 1 caught up, arriving late.
	rpcs := cfg.RPCTotal()
	rf.appendAnswered(&appendCall{p: 1, sent: rf.host.Now(), args: AppendEntriesArgs{Term: term, PrevLogIndex: 3}, reply: AppendEntriesReply{Term: term, XTerm: -1, XLen: 2}}, true)
	assert.Equal(t, 6, rf.nextIndex[1], "a stale rejection moved nextIndex below the match")
	assert.Equal(t, rpcs, cfg.RPCTotal(), "a stale rejection made the leader resend entries 1 has")
}

func TestSnapshotAtOrBelowTheLastIgnored(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 3 {
		cfg.One(i, 3, false)
	}
	rf := cfg.raft(1)
	rf.Snapshot(2, []byte("at 2"))
	rf.Snapshot(2, []byte("at 2 again"))
	rf.Snapshot(1, []byte("at 1"))
	assert.Equal(t, []byte("at 2"), rf.persister.ReadSnapshot())
	rf.Snapshot(4, []byte("beyond what was applied"))
	assert.Equal(t, []byte("at 2"), rf.persister.ReadSnapshot())
}

func TestInstallSnapshotOfCommittedEntriesIgnored(t *testing.T) {
	cfg := isolated(t)
	cfg.appendEntries(2, 0, 1, 0, 0, 3, Entry{1, 1}, Entry{1, 2}, Entry{1, 3})
	cfg.raft(2).InstallSnapshot(&InstallSnapshotArgs{Term: 1, LeaderID: 0, LastIncludedIndex: 3, LastIncludedTerm: 1, Data: []byte("at 3")}, &InstallSnapshotReply{})
	assert.Empty(t, cfg.raft(2).persister.ReadSnapshot(), "a snapshot of what the follower had committed replaced its log")
	cfg.Sleep(time.Millisecond)
	assert.Equal(t, 3, cfg.LastApplied(2), "the follower applies its entries, no snapshot")
}

func TestStartOnAFollower(t *testing.T) {
	cfg := isolated(t)
	cfg.heartbeat(2, 0, 4, 0, 0)
	index, term, ok := cfg.raft(2).Start("x")
	assert.Equal(t, []any{-1, 4, false}, []any{index, term, ok})
	assert.Equal(t, 0, cfg.raft(2).log.last())
}

// within finds the longest run of entries from lo that fits in a number
// of persisted bytes, and never less than one entry.
func TestWithin(t *testing.T) {
	l := newLog(nil)
	l.compact(10, 1)
	for i := range 5 {
		l.append(Entry{1, big(i, 99)}) // the same size each
	}
	size := l.marks[2].at - l.marks[1].at
	for _, c := range []struct{ lo, hi, limit, want int }{
		{11, 15, 5 * size, 15},   // all fit, exactly
		{11, 15, 5*size - 1, 14}, // one byte short of the last
		{11, 15, 2 * size, 12},   // two
		{12, 15, 2*size + 1, 13}, // two, from the second
		{11, 15, size - 1, 11},   // the first alone is too big: it goes alone
		{13, 13, 1, 13},          // one entry, too big
		{11, 13, 100 * size, 13}, // hi bounds it
		{14, 15, 2 * size, 15},   // the last entries, whose end is the encoding's
		{15, 15, size, 15},
	} {
		assert.Equal(t, c.want, l.within(c.lo, c.hi, c.limit), "within(%d, %d, %d) with entries of %d bytes", c.lo, c.hi, c.limit, size)
	}
}
