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

func (t *tally) Apply(any) any          { t.n++; return t.n }
func (t *tally) Snapshot() []byte       { return nil }
func (t *tally) Restore(b []byte) error { return nil }

// A Raft may hand the service an index again (a course's Raft, replaying
// after a restart); the service applies each index once.
func TestApplyIgnoresAnIndexAgain(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	sm := &tally{}
	s, err := MakeServer(h, make([]*labrpc.ClientEnd, 1), 0, h.Persister(), sm, nil, DefaultConfig())
	require.NoError(t, err)
	msg := raft.ApplyMsg{CommandValid: true, Command: entry{Cmd: "x"}, CommandIndex: 1, CommandTerm: 1}
	s.apply(msg)
	s.apply(msg)
	assert.Equal(t, 1, sm.n)
	msg.CommandIndex = 2
	s.apply(msg)
	assert.Equal(t, 2, sm.n)
}
