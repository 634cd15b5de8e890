package raft

// Timing: the profiles, the lease's length, and when CheckQuorum and the
// lease end, to the nanosecond of virtual time.

import (
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfiles(t *testing.T) {
	assert.Equal(t, Config{Heartbeat: 100 * time.Millisecond, ElectionMin: 300 * time.Millisecond, ElectionMax: 600 * time.Millisecond,
		PreVote: true, CheckQuorum: true, LeaseDrift: 0.05, MaxBatchBytes: 1 << 20}, LabConfig())
	assert.Equal(t, Config{Heartbeat: 400 * time.Millisecond, ElectionMin: 500 * time.Millisecond, ElectionMax: 1000 * time.Millisecond,
		RPCTimeout: 2 * time.Second, PreVote: true, CheckQuorum: true, LeaseDrift: 0.05, MaxBatchBytes: 1 << 20}, PaperConfig())
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
	rf := cfg.raft(l)
	cfg.Sleep(time.Second)
	q := rf.quorumSince()
	require.True(t, cfg.World().RunUntil(func() bool { return rf.quorumSince() > q }, time.Second))
	cfg.Disconnect(l)
	return cfg, rf, rf.quorumSince()
}

func TestCheckQuorumStepsDownAfterElectionMax(t *testing.T) {
	cfg, rf, since := cutOffLeader(t)
	cfg.Sleep(since + LabConfig().ElectionMax - 1 - cfg.World().Now())
	_, isLeader := rf.GetState()
	require.True(t, isLeader, "stepped down before ElectionMax without a quorum")
	cfg.Sleep(1)
	_, isLeader = rf.GetState()
	assert.False(t, isLeader, "still leads ElectionMax after the last message a quorum answered")
}

func TestCheckQuorumGivesANewLeaderElectionMax(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, LabConfig())
	leader := func() bool { return len(cfg.LeadersAmong(cfg.All())) == 1 }
	require.True(t, cfg.World().RunUntil(leader, 10*time.Second))
	l := cfg.LeadersAmong(cfg.All())[0]
	cfg.Disconnect(l) // before anyone answers it
	rf, since := cfg.raft(l), cfg.World().Now()
	cfg.Sleep(LabConfig().ElectionMax - 1)
	_, isLeader := rf.GetState()
	require.True(t, isLeader, "a new leader stepped down before ElectionMax")
	cfg.Sleep(since + LabConfig().ElectionMax - cfg.World().Now())
	_, isLeader = rf.GetState()
	assert.False(t, isLeader, "a new leader no one answered still leads after ElectionMax")
}

func TestLeaseEndsAfterLeaseDuration(t *testing.T) {
	cfg, rf, since := cutOffLeader(t)
	cfg.Sleep(since + LabConfig().LeaseDuration() - 1 - cfg.World().Now())
	_, ok := rf.LeaseRead()
	require.True(t, ok, "the lease ended early")
	cfg.Sleep(1)
	_, ok = rf.LeaseRead()
	assert.False(t, ok, "the lease outlived LeaseDuration")
}

// TestRPCTimeoutGivesUp holds back the replies to AppendEntries that carry
// entries (heartbeats' replies flow, so the leader keeps its followers) and
// counts the carrying requests the leader sends in one second after Start.
// With RPCTimeout, the leader gives up on each after 300 ms and sends the
// entries again; without, the one request stays in flight. A reply that
// comes after its request was given up on is ignored: with replies 500 ms
// late, nothing commits.
func TestRPCTimeoutGivesUp(t *testing.T) {
	for _, c := range []struct{ timeout, late time.Duration }{{0, time.Hour}, {300 * time.Millisecond, time.Hour}, {300 * time.Millisecond, 500 * time.Millisecond}} {
		rc := LabConfig()
		rc.RPCTimeout = c.timeout
		cfg := makeConfig(t, 1, 3, false, false, rc)
		leader := cfg.CheckOneLeader()
		carries := 0
		if err := cfg.Cluster().Monkey().SetDelayRule("replies to AppendEntries with entries late", func(m labrpc.Message) time.Duration {
			if args, ok := m.Args.(*AppendEntriesArgs); ok && len(args.Entries) > 0 {
				if m.IsReply {
					return c.late
				}
				carries++
			}
			return 0
		}); err != nil {
			t.Fatal(err)
		}
		rf := cfg.raft(leader)
		committed := rf.commitIndex
		rf.Start(1)
		rf.flush()
		cfg.Sleep(time.Second)
		if c.timeout == 0 {
			assert.Equal(t, 2, carries, "one request to each follower, in flight all along")
		} else {
			assert.GreaterOrEqual(t, carries, 2*3, "RPCTimeout %v: each follower's request sent again at least twice", c.timeout)
		}
		assert.Equal(t, committed, rf.commitIndex, "replies %v late, RPCTimeout %v", c.late, c.timeout)
	}
}
