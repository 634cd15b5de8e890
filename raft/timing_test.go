package raft

// Timing: the profiles, the lease's length, and when CheckQuorum and the
// lease end, to the nanosecond of virtual time.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfiles(t *testing.T) {
	assert.Equal(t, Config{Heartbeat: 100 * time.Millisecond, ElectionMin: 300 * time.Millisecond, ElectionMax: 600 * time.Millisecond,
		PreVote: true, CheckQuorum: true, LeaseDrift: 0.05}, LabConfig())
	assert.Equal(t, Config{Heartbeat: 400 * time.Millisecond, ElectionMin: 500 * time.Millisecond, ElectionMax: 1000 * time.Millisecond,
		RPCTimeout: 2 * time.Second, PreVote: true, CheckQuorum: true, LeaseDrift: 0.05}, PaperConfig())
}

func TestLeaseDuration(t *testing.T) {
	rc := LabConfig()
	// 300 ms · 0.95 / 1.05
	assert.Equal(t, 271428571*time.Nanosecond, rc.LeaseDuration())
	rc.LeaseDrift = 0
	assert.Equal(t, rc.ElectionMin, rc.LeaseDuration())
	rc.LeaseDrift = 0.5 // 300 ms · 0.5 / 1.5
	assert.Equal(t, 100*time.Millisecond, rc.LeaseDuration())
}

// cutOffLeader returns a settled 3-server cluster whose leader has just
// been cut off, just after the followers answered a heartbeat, and the
// send time of the last message a majority answered.
func cutOffLeader(t *testing.T) (*config, *Raft, time.Duration) {
	cfg, l := settled(t, 3, LabConfig())
	rf := cfg.rafts[l]
	cfg.sleep(time.Second)
	q := rf.quorumSince()
	require.True(t, cfg.w.RunUntil(func() bool { return rf.quorumSince() > q }, time.Second))
	cfg.disconnect(l)
	return cfg, rf, rf.quorumSince()
}

func TestCheckQuorumStepsDownAfterElectionMax(t *testing.T) {
	cfg, rf, since := cutOffLeader(t)
	cfg.sleep(since + LabConfig().ElectionMax - 1 - cfg.w.Now())
	_, isLeader := rf.GetState()
	require.True(t, isLeader, "stepped down before ElectionMax without a quorum")
	cfg.sleep(1)
	_, isLeader = rf.GetState()
	assert.False(t, isLeader, "still leads ElectionMax after the last message a quorum answered")
}

func TestCheckQuorumGivesANewLeaderElectionMax(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, LabConfig())
	leader := func() bool { return len(cfg.leadersAmong(allServers(3))) == 1 }
	require.True(t, cfg.w.RunUntil(leader, 10*time.Second))
	l := cfg.leadersAmong(allServers(3))[0]
	cfg.disconnect(l) // before anyone answers it
	rf, since := cfg.rafts[l], cfg.w.Now()
	cfg.sleep(LabConfig().ElectionMax - 1)
	_, isLeader := rf.GetState()
	require.True(t, isLeader, "a new leader stepped down before ElectionMax")
	cfg.sleep(since + LabConfig().ElectionMax - cfg.w.Now())
	_, isLeader = rf.GetState()
	assert.False(t, isLeader, "a new leader no one answered still leads after ElectionMax")
}

func TestLeaseEndsAfterLeaseDuration(t *testing.T) {
	cfg, rf, since := cutOffLeader(t)
	cfg.sleep(since + LabConfig().LeaseDuration() - 1 - cfg.w.Now())
	_, ok := rf.LeaseRead()
	require.True(t, ok, "the lease ended early")
	cfg.sleep(1)
	_, ok = rf.LeaseRead()
	assert.False(t, ok, "the lease outlived LeaseDuration")
}
