package raft

// Replication speed: what the leader sends and when, in message counts,
// bytes and virtual time. A slowdown to one entry per heartbeat, or a
// resend of entries a follower has, breaks no safety test; these catch it.

import (
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rtt bounds a round trip on the default network.
var rtt = func() time.Duration {
	p := labrpc.DefaultParams()
	return 2 * (p.Latency + p.Jitter)
}()

// quiet is the lab's config with heartbeats so rare that none falls inside
// a measurement, so that message counts are exact.
func quiet() Config {
	rc := LabConfig()
	rc.Heartbeat, rc.ElectionMin, rc.ElectionMax = time.Second, 3*time.Second, 6*time.Second
	return rc
}

// big returns a command of about n bytes, distinct for each i.
func big(i, n int) string { return strings.Repeat("x", n) + string(rune('a'+i%26)) }

// settled returns a cluster of n servers that has committed one entry,
// and its leader.
func settled(t *testing.T, n int, rc Config) (*config, int) {
	cfg := makeConfig(t, 1, n, false, false, rc)
	cfg.one(0, n, true)
	return cfg, cfg.checkOneLeader()
}

// appliedBy reports whether server i has applied index.
func (cfg *config) appliedBy(i, index int) func() bool {
	return func() bool { _, ok := cfg.logs[i][index]; return ok }
}

func TestStartSendsAtOnce(t *testing.T) {
	cfg, l := settled(t, 3, quiet())
	index, _, _ := cfg.rafts[l].Start(1)
	assert.True(t, cfg.w.RunUntil(cfg.appliedBy(l, index), rtt), "the leader took longer than a round trip to commit")
}

func TestHeartbeatOnlyWaitsForTheHeartbeat(t *testing.T) {
	rc := quiet()
	rc.HeartbeatOnly = true
	cfg, l := settled(t, 3, rc)
	index, _, _ := cfg.rafts[l].Start(1)
	assert.False(t, cfg.w.RunUntil(cfg.appliedBy(l, index), rtt), "HeartbeatOnly sent at once")
	assert.True(t, cfg.w.RunUntil(cfg.appliedBy(l, index), rc.Heartbeat+rtt))
}

func TestFollowersLearnCommitFromTheNextAppend(t *testing.T) {
	cfg, l := settled(t, 3, quiet())
	first, _, _ := cfg.rafts[l].Start(1)
	require.True(t, cfg.w.RunUntil(cfg.appliedBy(l, first), rtt))
	cfg.rafts[l].Start(2)
	assert.True(t, cfg.w.RunUntil(func() bool { n, _ := cfg.nCommitted(first); return n == 3 }, rtt),
		"the followers did not learn the commit from the AppendEntries that followed it")
}

func TestEntriesBatchBehindAnAppendInFlight(t *testing.T) {
	cfg, l := settled(t, 3, quiet())
	rpcs := cfg.rpcTotal()
	var last int
	for i := range 50 {
		last, _, _ = cfg.rafts[l].Start(i)
	}
	assert.True(t, cfg.w.RunUntil(cfg.appliedBy(l, last), 2*rtt), "50 entries took more than two round trips")
	assert.Equal(t, 4, cfg.rpcTotal()-rpcs, "one AppendEntries with the first entry and one with the rest, to each follower")
}

func TestMaxBatch(t *testing.T) {
	rc := quiet()
	rc.MaxBatch = 5
	cfg, l := settled(t, 3, rc)
	rpcs := cfg.rpcTotal()
	var last int
	for i := range 21 {
		last, _, _ = cfg.rafts[l].Start(i)
	}
	require.True(t, cfg.w.RunUntil(cfg.appliedBy(l, last), 5*rtt))
	assert.Equal(t, 2*5, cfg.rpcTotal()-rpcs, "to each follower: the first entry, then four batches of at most 5")
}

func TestNewLeaderSendsNoEntriesToUpToDateFollowers(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 3 {
		cfg.one(big(i, 1000), 3, false)
	}
	bytes := cfg.net.GetTotalBytes()
	cfg.elect(1)
	assert.Less(t, cfg.net.GetTotalBytes()-bytes, int64(1000), "a new leader sent entries its followers have")
}

func TestLostAppendResentFromTheMatch(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 2 {
		cfg.one(big(i, 1000), 3, false)
	}
	cfg.disconnect(2)
	index, _, _ := cfg.rafts[0].Start(big(2, 1000))
	cfg.sleep(RaftElectionTimeout) // the AppendEntries to 2 fails
	cfg.connect(2)
	bytes := cfg.net.GetTotalBytes()
	require.True(t, cfg.w.RunUntil(func() bool { return cfg.rafts[2].log.last() == index }, time.Second))
	assert.Less(t, cfg.net.GetTotalBytes()-bytes, int64(1500), "more than the one missing entry resent")
}

// TestFollowerBehindGetsWhatItLacks has a follower miss two entries and a
// change of leader: the new leader must learn its log's length from one
// rejection and send just the two.
func TestFollowerBehindGetsWhatItLacks(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 3 {
		cfg.one(big(i, 1000), 3, false)
	}
	cfg.disconnect(2)
	for i := range 2 {
		cfg.one(big(3+i, 1000), 2, false)
	}
	cfg.elect(1)
	got, bytes := cfg.net.GetCount(2), cfg.net.GetTotalBytes()
	cfg.connect(2)
	require.True(t, cfg.w.RunUntil(func() bool { return cfg.rafts[2].log.last() == 5 }, time.Second))
	assert.Equal(t, 2, cfg.net.GetCount(2)-got, "AppendEntries to the follower: one rejected, one with the missing entries")
	assert.Less(t, cfg.net.GetTotalBytes()-bytes, int64(3*1000), "entries the follower had were resent")
}

// TestFastBacktracking has a follower come back with 30 entries of an old
// term after 20 entries both share, while the leader has 5 of its own term
// there: the leader must find the match in one rejection, and send only
// its 5 entries.
func TestFastBacktracking(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 20 {
		cfg.one(big(i, 1000), 3, false)
	}
	cfg.only(0)
	for i := range 30 {
		cfg.rafts[0].Start(100 + i)
	}
	cfg.only(1, 2)
	cfg.elect(1)
	for i := range 5 {
		cfg.one(big(i, 1000), 2, false)
	}
	cfg.elect(1) // again, so that it assumes 0 has all its log
	got, bytes := cfg.net.GetCount(0), cfg.net.GetTotalBytes()
	cfg.connect(0)
	leader := cfg.rafts[1]
	require.True(t, cfg.w.RunUntil(func() bool {
		rf := cfg.rafts[0]
		return rf.log.last() == 25 && rf.log.term(25) == leader.log.term(25)
	}, time.Second))
	assert.Equal(t, 2, cfg.net.GetCount(0)-got, "AppendEntries to the follower: one rejected, one with the missing entries")
	assert.Less(t, cfg.net.GetTotalBytes()-bytes, int64(6*1000), "entries the follower had were resent")
}

func TestSnapshotInstallThenEntriesAtOnce(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, true, scripted(LabConfig()))
	cfg.elect(0)
	cfg.disconnect(2)
	for i := 1; i <= SnapShotInterval+1; i++ {
		cfg.one(i, 2, false)
	}
	cfg.connect(2)
	rf := cfg.rafts[2]
	require.True(t, cfg.w.RunUntil(func() bool { return rf.log.base == SnapShotInterval }, time.Second), "no snapshot installed")
	assert.True(t, cfg.w.RunUntil(func() bool { return rf.log.last() == SnapShotInterval+1 }, rtt),
		"the entry after the snapshot waited for a heartbeat")
}

func TestIdleClusterEvents(t *testing.T) {
	rc := LabConfig()
	cfg, _ := settled(t, 3, rc)
	cfg.sleep(time.Second)
	events := cfg.w.Events()
	cfg.sleep(10 * rc.Heartbeat)
	// Per heartbeat: the leader's tick, and to each follower a request and
	// a reply.
	assert.LessOrEqual(t, cfg.w.Events()-events, uint64(10*5), "an idle cluster does needless work")
}

func TestOneServer(t *testing.T) {
	cfg := makeConfig(t, 1, 1, false, false, LabConfig())
	cfg.sleep(LabConfig().ElectionMax + rtt)
	term, isLeader := cfg.rafts[0].GetState()
	require.True(t, isLeader, "a lone server did not elect itself")
	index, term1, _ := cfg.rafts[0].Start("x")
	assert.Equal(t, term, term1)
	assert.True(t, cfg.w.RunUntil(cfg.appliedBy(0, index), 0), "a lone leader did not commit at once")
	read := -1
	require.True(t, cfg.rafts[0].ReadIndex(func(i int, ok bool) { read = i }))
	assert.Equal(t, index, read, "a lone leader's read waited")
	_, ok := cfg.rafts[0].LeaseRead()
	assert.True(t, ok)
	// It comes back from a crash as leader of a later term, with its log.
	cfg.start1(0)
	cfg.connect(0)
	cfg.sleep(LabConfig().ElectionMax + rtt)
	term2, isLeader := cfg.rafts[0].GetState()
	assert.True(t, isLeader)
	assert.Greater(t, term2, term)
	assert.Equal(t, index, cfg.rafts[0].log.last())
}
