package raft

import (
	"math"
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
	assert.EqualError(t, bad(func(c *Config) { c.MaxBatchBytes = -1 }), "raft: MaxBatchBytes -1 is negative")
	assert.EqualError(t, bad(func(c *Config) { c.Bandwidth = -1 }), "raft: Bandwidth -1 bytes/s is negative")
	assert.EqualError(t, bad(func(c *Config) { c.Heartbeat = math.MaxInt64 }), "raft: Heartbeat 2562047h47m16.854775807s is longer than a day (MaxSetting)")
	assert.EqualError(t, bad(func(c *Config) { c.ElectionMin = MaxSetting + 1 }), "raft: ElectionMin 24h0m0.000000001s is longer than a day (MaxSetting)")
	assert.EqualError(t, bad(func(c *Config) { c.ElectionMax = MaxSetting + 1 }), "raft: ElectionMax 24h0m0.000000001s is longer than a day (MaxSetting)")
	assert.EqualError(t, bad(func(c *Config) { c.RPCTimeout = MaxSetting + 1 }), "raft: RPCTimeout 24h0m0.000000001s is longer than a day (MaxSetting)")
	assert.NoError(t, bad(func(c *Config) { c.ElectionMin, c.ElectionMax, c.RPCTimeout = MaxSetting, MaxSetting, MaxSetting }), "a day is allowed")
	assert.EqualError(t, bad(func(c *Config) { c.ElectionMin = c.Heartbeat }), "raft: ElectionMin 100ms must exceed Heartbeat 100ms")
	assert.EqualError(t, bad(func(c *Config) { c.LeaseDrift = 1 }), "raft: LeaseDrift 1 is not in [0, 1)")
	assert.EqualError(t, bad(func(c *Config) { c.LeaseDrift = -0.01 }), "raft: LeaseDrift -0.01 is not in [0, 1)")
	assert.EqualError(t, bad(func(c *Config) { c.LeaseDrift = math.NaN() }), "raft: LeaseDrift NaN is not in [0, 1)")
	// The edges that work.
	assert.NoError(t, bad(func(c *Config) {
		c.Heartbeat, c.ElectionMin, c.ElectionMax = 1, 2, 2
		c.RPCTimeout, c.MaxBatch, c.MaxBatchBytes, c.LeaseDrift = 0, 0, 0, 0
	}))
}

// A batch is bounded by MaxBatchBytes and, with Bandwidth, by an equal
// share among the other peers of what the link sends in half a
// heartbeat (at least a byte: one entry then goes alone).
func TestBatchBytes(t *testing.T) {
	c := LabConfig() // 1 MiB, a heartbeat of 100 ms
	assert.Equal(t, 1<<20, c.batchBytes(4), "no bandwidth: MaxBatchBytes")
	c.Bandwidth = 100_000
	assert.Equal(t, 2500, c.batchBytes(2), "5000 bytes in 50 ms, shared by two")
	assert.Equal(t, 5000, c.batchBytes(1))
	assert.Equal(t, 1<<20, c.batchBytes(0), "no peers: MaxBatchBytes")
	c.Bandwidth = 1 << 30
	assert.Equal(t, 1<<20, c.batchBytes(2), "a fast link: MaxBatchBytes")
	c.MaxBatchBytes = 0
	assert.Equal(t, (1<<30)/20/2, c.batchBytes(2), "no MaxBatchBytes: the share")
	c.Bandwidth = 1
	assert.Equal(t, 1, c.batchBytes(6), "at least a byte")
	c.Bandwidth, c.Heartbeat = math.MaxInt64, MaxSetting
	assert.Equal(t, math.MaxInt32, c.batchBytes(1), "no overflow")
}

func TestMakeRejectsBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	_, err := Make(h, make([]*labrpc.ClientEnd, 2), 2, h.Persister(), func(ApplyMsg) {}, LabConfig())
	assert.EqualError(t, err, "raft: me = 2 is not a peer index in 0..1")

}
