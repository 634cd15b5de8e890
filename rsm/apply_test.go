package rsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

// tally is a state machine that counts the commands it applies.
type tally struct{ n int }

func (t *tally) Apply(any) any    { t.n++; return t.n }
func (t *tally) Snapshot() []byte { return []byte{byte(t.n)} }

func (t *tally) Restore(b []byte) error {
	t.n = 0
	if len(b) > 0 {
		t.n = int(b[0])
	}
	return nil
}

// A Raft may hand the service an index again (a course's Raft, replaying
// after a restart); the service applies each index once.
func TestApplyIgnoresAnIndexAgain(t *testing.T) {
	s, sm := newSolo(t, DefaultConfig())
	msg := raft.ApplyMsg{CommandValid: true, Command: entry{Cmd: "x"}, CommandIndex: 1, CommandTerm: 1}
	s.apply(msg)
	s.apply(msg)
	assert.Equal(t, 1, sm.n)
	msg.CommandIndex = 2
	s.apply(msg)
	assert.Equal(t, 2, sm.n)
}

// newSolo is one server of tally with cfg on a fresh world, never started
// as a cluster: the tests hand it what Raft would.
func newSolo(t *testing.T, cfg Config) (*Server, *tally) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	sm := &tally{}
	s, err := MakeServer(h, make([]*labrpc.ClientEnd, 1), 0, h.Persister(), sm, nil, cfg)
	require.NoError(t, err)
	return s, sm
}

// A snapshot fails the waiters it covers (their outcome is not known
// here) and keeps the others; a snapshot no newer than what is applied is
// ignored.
func TestSnapshotFailsTheWaitersItCovers(t *testing.T) {
	s, sm := newSolo(t, DefaultConfig())
	var covered, later []bool
	s.waiting[3] = waiter{term: 1, done: func(_ any, ok bool) { covered = append(covered, ok) }}
	s.waiting[5] = waiter{term: 1, done: func(_ any, ok bool) { covered = append(covered, ok) }}
	s.waiting[7] = waiter{term: 1, done: func(_ any, ok bool) { later = append(later, ok) }}
	sm.n, s.applied = 5, 5
	snap := s.snapshot()
	sm.n, s.applied = 0, 0
	s.apply(raft.ApplyMsg{SnapshotValid: true, Snapshot: snap, SnapshotIndex: 5, SnapshotTerm: 1})
	assert.Equal(t, 5, sm.n, "the state came from the snapshot")
	assert.Equal(t, []bool{false, false}, covered, "the waiters at 3 and at 5 fail")
	assert.Empty(t, later)
	assert.Contains(t, s.waiting, 7)

	sm.n = 9
	s.apply(raft.ApplyMsg{SnapshotValid: true, Snapshot: snap, SnapshotIndex: 5, SnapshotTerm: 1})
	assert.Equal(t, 9, sm.n, "a snapshot at the applied index is not restored again")
}

// A confirmed read at an index not yet applied waits for it, and reads
// are answered in the order their indices are applied.
func TestReadsWaitUntilTheirIndexIsApplied(t *testing.T) {
	s, _ := newSolo(t, DefaultConfig())
	var got []any
	s.readAt(2, "r2", func(r any, ok bool) { got = append(got, r) })
	s.readAt(1, "r1", func(r any, ok bool) { got = append(got, r) })
	assert.Empty(t, got)
	s.apply(raft.ApplyMsg{CommandValid: true, Command: entry{Cmd: "w"}, CommandIndex: 1, CommandTerm: 1})
	assert.Equal(t, []any{2}, got, "the read at index 1 is served once index 1 is applied, not the one at 2")
	s.apply(raft.ApplyMsg{CommandValid: true, Command: entry{Cmd: "w"}, CommandIndex: 2, CommandTerm: 1})
	assert.Equal(t, []any{2, 4}, got)
	assert.Empty(t, s.reads)
}

// indexed is a state machine that records the index Applied reports
// while it applies each command.
type indexed struct {
	s       *Server
	indices []int
}

func (x *indexed) Apply(any) any          { x.indices = append(x.indices, x.s.Applied()); return nil }
func (x *indexed) Snapshot() []byte       { return nil }
func (x *indexed) Restore(b []byte) error { return nil }

// Inside Apply, Applied is the index of the entry being applied.
func TestAppliedIsTheIndexBeingApplied(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	sm := &indexed{}
	s, err := MakeServer(h, make([]*labrpc.ClientEnd, 1), 0, h.Persister(), sm, nil, DefaultConfig())
	require.NoError(t, err)
	sm.s = s
	for _, i := range []int{1, 2, 5} {
		s.apply(raft.ApplyMsg{CommandValid: true, Command: entry{Cmd: "x"}, CommandIndex: i, CommandTerm: 1})
	}
	assert.Equal(t, []int{1, 2, 5}, sm.indices)
	assert.Equal(t, 5, s.Applied())
}

// snapshots is a node that records the indices it is told to snapshot at.
type snapshots struct {
	node
	at []int
}

func (n *snapshots) Snapshot(index int, _ []byte) { n.at = append(n.at, index) }

// The server snapshots once Raft's persisted state reaches MaxRaftState
// bytes: not one byte below, and at exactly the limit.
func TestSnapshotAtMaxRaftState(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxRaftState = 100
	s, _ := newSolo(t, cfg)
	rf := &snapshots{node: s.rf}
	s.rf = rf
	for i, size := range []int{99, 100, 101} {
		s.ps.Save(make([]byte, size), nil)
		s.apply(raft.ApplyMsg{CommandValid: true, Command: entry{Cmd: "x"}, CommandIndex: i + 1, CommandTerm: 1})
	}
	assert.Equal(t, []int{2, 3}, rf.at)
}
