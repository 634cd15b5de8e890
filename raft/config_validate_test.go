package raft

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigValidate(t *testing.T) {
	require.NoError(t, LabConfig().Validate())
	require.NoError(t, PaperConfig().Validate())
	bad := func(edit func(*Config)) error {
		c := LabConfig()
		edit(&c)
		return c.Validate()
	}
	assert.EqualError(t, bad(func(c *Config) { c.Heartbeat = 0 }), "raft: Heartbeat 0s is not positive")
	assert.EqualError(t, bad(func(c *Config) { c.ElectionMin = 50 * time.Millisecond }), "raft: ElectionMin 50ms must exceed Heartbeat 100ms")
	assert.EqualError(t, bad(func(c *Config) { c.ElectionMax = 200 * time.Millisecond }), "raft: ElectionMax 200ms is below ElectionMin 300ms")
	assert.EqualError(t, bad(func(c *Config) { c.RPCTimeout = -time.Second }), "raft: RPCTimeout -1s is negative")
	assert.EqualError(t, bad(func(c *Config) { c.MaxBatch = -1 }), "raft: MaxBatch -1 is negative")
}

func TestMakeRejectsBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	net := labrpc.MakeNetwork(w)
	peers := []*labrpc.ClientEnd{net.MakeEnd("a", h), net.MakeEnd("b", h)}
	_, err := Make(h, peers, 2, h.Persister(), func(ApplyMsg) {}, LabConfig())
	assert.EqualError(t, err, "raft: me = 2 is not a peer index in 0..1")

	// An entry of term 1 with no command, then base 0, base term 0, three
	// entries claimed, term 5, vote -1, and the trailer's length.
	state := binary.LittleEndian.AppendUint32([]byte{1, 0, 0, 3, 5, 1}, 5)
	h.Persister().Save(state, nil)
	_, err = Make(h, peers, 0, h.Persister(), func(ApplyMsg) {}, LabConfig())
	assert.EqualError(t, err, "raft: server 0: bad persisted state: entry of term 1: truncated")
}

type opaque struct{ A, B int }

func TestCommandsSurviveEncoding(t *testing.T) {
	for _, cmd := range []any{nil, 0, -7, 1 << 40, "", "hello", []byte{1, 2}} {
		b := encodeCommand(nil, cmd, nil)
		got, rest, err := decodeCommand(b, nil)
		require.NoError(t, err)
		assert.Empty(t, rest)
		assert.Equal(t, cmd, got)
	}
	assert.PanicsWithValue(t,
		"raft: cannot persist command of type raft.opaque (register it with gob.Register): gob: type not registered for interface: raft.opaque",
		func() { encodeCommand(nil, opaque{1, 2}, nil) })
}
