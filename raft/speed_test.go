package raft

// Replication speed: what the leader sends and when, in message counts,
// bytes and virtual time. A slowdown to one entry per heartbeat, or a
// resend of entries a follower has, breaks no safety test; these catch it.

import (
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/rafttest"
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
	cfg.One(0, n, true)
	return cfg, cfg.CheckOneLeader()
}

// appliedBy reports whether server i has applied index.
func (cfg *config) appliedBy(i, index int) func() bool {
	return func() bool { _, ok := cfg.Applied(i, index); return ok }
}

func TestStartSendsAtOnce(t *testing.T) {
	cfg, l := settled(t, 3, quiet())
	index, _, _ := cfg.raft(l).Start(1)
	assert.True(t, cfg.World().RunUntil(cfg.appliedBy(l, index), rtt), "the leader took longer than a round trip to commit")
}

func TestHeartbeatOnlyWaitsForTheHeartbeat(t *testing.T) {
	rc := quiet()
	rc.HeartbeatOnly = true
	cfg, l := settled(t, 3, rc)
	index, _, _ := cfg.raft(l).Start(1)
	assert.False(t, cfg.World().RunUntil(cfg.appliedBy(l, index), rtt), "HeartbeatOnly sent at once")
	assert.True(t, cfg.World().RunUntil(cfg.appliedBy(l, index), rc.Heartbeat+rtt))
}

func TestFollowersLearnCommitFromTheNextAppend(t *testing.T) {
	cfg, l := settled(t, 3, quiet())
	first, _, _ := cfg.raft(l).Start(1)
	require.True(t, cfg.World().RunUntil(cfg.appliedBy(l, first), rtt))
	cfg.raft(l).Start(2)
	assert.True(t, cfg.World().RunUntil(func() bool { n, _ := cfg.NCommitted(first); return n == 3 }, rtt),
		"the followers did not learn the commit from the AppendEntries that followed it")
}

func TestEntriesBatchBehindAnAppendInFlight(t *testing.T) {
	cfg, l := settled(t, 3, quiet())
	rpcs := cfg.RPCTotal()
	var last int
	for i := range 50 {
		last, _, _ = cfg.raft(l).Start(i)
	}
	assert.True(t, cfg.World().RunUntil(cfg.appliedBy(l, last), 2*rtt), "50 entries took more than two round trips")
	assert.Equal(t, 4, cfg.RPCTotal()-rpcs, "one AppendEntries with the first entry and one with the rest, to each follower")
}

func TestMaxBatch(t *testing.T) {
	rc := quiet()
	rc.MaxBatch = 5
	cfg, l := settled(t, 3, rc)
	rpcs := cfg.RPCTotal()
	var last int
	for i := range 21 {
		last, _, _ = cfg.raft(l).Start(i)
	}
	require.True(t, cfg.World().RunUntil(cfg.appliedBy(l, last), 5*rtt))
	assert.Equal(t, 2*5, cfg.RPCTotal()-rpcs, "to each follower: the first entry, then four batches of at most 5")
}

func TestNewLeaderSendsNoEntriesToUpToDateFollowers(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 3 {
		cfg.One(big(i, 1000), 3, false)
	}
	bytes := cfg.Bytes()
	cfg.elect(1)
	assert.Less(t, cfg.Bytes()-bytes, int64(1000), "a new leader sent entries its followers have")
}

func TestLostAppendResentFromTheMatch(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 2 {
		cfg.One(big(i, 1000), 3, false)
	}
	cfg.Disconnect(2)
	index, _, _ := cfg.raft(0).Start(big(2, 1000))
	cfg.Sleep(rafttest.ElectionTimeout) // the AppendEntries to 2 fails
	cfg.Connect(2)
	bytes := cfg.Bytes()
	require.True(t, cfg.World().RunUntil(func() bool { return cfg.raft(2).log.last() == index }, time.Second))
	assert.Less(t, cfg.Bytes()-bytes, int64(1500), "more than the one missing entry resent")
}

// TestFollowerBehindGetsWhatItLacks has a follower miss two entries and a
// change of leader: the new leader must learn its log's length from one
// rejection and send just the two.
func TestFollowerBehindGetsWhatItLacks(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 3 {
		cfg.One(big(i, 1000), 3, false)
	}
	cfg.Disconnect(2)
	for i := range 2 {
		cfg.One(big(3+i, 1000), 2, false)
	}
	cfg.elect(1)
	got, bytes := cfg.RPCCount(2), cfg.Bytes()
	cfg.Connect(2)
	require.True(t, cfg.World().RunUntil(func() bool { return cfg.raft(2).log.last() == 5 }, time.Second))
	assert.Equal(t, 2, cfg.RPCCount(2)-got, "AppendEntries to the follower: one rejected, one with the missing entries")
	assert.Less(t, cfg.Bytes()-bytes, int64(3*1000), "entries the follower had were resent")
}

// TestFastBacktracking has a follower come back with 30 entries of an old
// term after 20 entries both share, while the leader has 5 of its own term
// there: the leader must find the match in one rejection, and send only
// its 5 entries.
func TestFastBacktracking(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, false, scripted(LabConfig()))
	cfg.elect(0)
	for i := range 20 {
		cfg.One(big(i, 1000), 3, false)
	}
	cfg.Only(0)
	for i := range 30 {
		cfg.raft(0).Start(100 + i)
	}
	cfg.Only(1, 2)
	cfg.elect(1)
	for i := range 5 {
		cfg.One(big(i, 1000), 2, false)
	}
	cfg.elect(1) // again, so that it assumes 0 has all its log
	got, bytes := cfg.RPCCount(0), cfg.Bytes()
	cfg.Connect(0)
	leader := cfg.raft(1)
	require.True(t, cfg.World().RunUntil(func() bool {
		rf := cfg.raft(0)
		return rf.log.last() == 25 && rf.log.term(25) == leader.log.term(25)
	}, time.Second))
	assert.Equal(t, 2, cfg.RPCCount(0)-got, "AppendEntries to the follower: one rejected, one with the missing entries")
	assert.Less(t, cfg.Bytes()-bytes, int64(6*1000), "entries the follower had were resent")
}

func TestSnapshotInstallThenEntriesAtOnce(t *testing.T) {
	cfg := makeConfig(t, 1, 3, false, true, scripted(LabConfig()))
	cfg.elect(0)
	cfg.Disconnect(2)
	for i := 1; i <= rafttest.SnapshotInterval+1; i++ {
		cfg.One(i, 2, false)
	}
	cfg.Connect(2)
	rf := cfg.raft(2)
	require.True(t, cfg.World().RunUntil(func() bool { return rf.log.base == rafttest.SnapshotInterval }, time.Second), "no snapshot installed")
	assert.True(t, cfg.World().RunUntil(func() bool { return rf.log.last() == rafttest.SnapshotInterval+1 }, rtt),
		"the entry after the snapshot waited for a heartbeat")
}

func TestIdleClusterEvents(t *testing.T) {
	rc := LabConfig()
	cfg, _ := settled(t, 3, rc)
	cfg.Sleep(time.Second)
	events := cfg.World().Events()
	cfg.Sleep(10 * rc.Heartbeat)
	// Per heartbeat: the leader's tick, and to each follower a request and
	// a reply.
	assert.LessOrEqual(t, cfg.World().Events()-events, uint64(10*5), "an idle cluster does needless work")
}

func TestOneServer(t *testing.T) {
	cfg := makeConfig(t, 1, 1, false, false, LabConfig())
	cfg.Sleep(LabConfig().ElectionMax + rtt)
	term, isLeader := cfg.raft(0).GetState()
	require.True(t, isLeader, "a lone server did not elect itself")
	index, term1, _ := cfg.raft(0).Start("x")
	assert.Equal(t, term, term1)
	assert.True(t, cfg.World().RunUntil(cfg.appliedBy(0, index), 0), "a lone leader did not commit at once")
	read := -1
	require.True(t, cfg.raft(0).ReadIndex(func(i int, ok bool) { read = i }))
	assert.Equal(t, index, read, "a lone leader's read waited")
	_, ok := cfg.raft(0).LeaseRead()
	assert.True(t, ok)
	// It comes back from a crash as leader of a later term, with its log.
	cfg.Start1(0)
	cfg.Connect(0)
	cfg.Sleep(LabConfig().ElectionMax + rtt)
	term2, isLeader := cfg.raft(0).GetState()
	assert.True(t, isLeader)
	assert.Greater(t, term2, term)
	assert.Equal(t, index, cfg.raft(0).log.last())
}

// A follower that comes back far behind is sent its gap in messages of
// at most MaxBatchBytes, and on a link that would take longer than an
// election timeout to send MaxBatchBytes, of at most the share of half a
// heartbeat that Bandwidth allows: the leader's heartbeats to the other
// followers do not queue behind one message longer than an election
// timeout, so no one starts an election while the follower catches up.
// Unbounded, the gap of 10 MB at 100 Mbit/s takes 800 ms on the wire; at
// 250 KB/s, 1 MiB takes 4 s.
func TestCatchUpKeepsTheLeader(t *testing.T) {
	for _, c := range []struct {
		name      string
		bandwidth int64 // the link's bytes a second
		entries   int   // of 250 KB, then of 25 KB on the slow link
		limit     int   // MaxBatchBytes
		known     bool  // Raft is told the link's bandwidth
		keeps     bool
	}{
		{"10 MB at 100 Mbit/s, unbounded", 12_500_000, 40, 0, false, false},
		{"10 MB at 100 Mbit/s, 1 MiB", 12_500_000, 40, 1 << 20, false, true},
		{"1.25 MB at 250 KB/s, 1 MiB", 250_000, 50, 1 << 20, false, false},
		{"1.25 MB at 250 KB/s, 1 MiB and the bandwidth", 250_000, 50, 1 << 20, true, true},
	} {
		rc := LabConfig()
		rc.MaxBatchBytes = c.limit
		if c.known {
			rc.Bandwidth = c.bandwidth
		}
		cfg := makeConfig(t, 1, 3, false, false, rc)
		p := labrpc.DefaultParams()
		p.Bandwidth = c.bandwidth
		require.NoError(t, cfg.Net().SetParams(p))
		l := cfg.CheckOneLeader()
		f := (l + 1) % 3
		cfg.Crash1(f)
		size := 250_000
		if c.bandwidth < 1_000_000 {
			size = 25_000
		}
		var last int
		for i := range c.entries {
			last = cfg.One(big(i, size), 2, true)
		}
		term := cfg.CheckTerms()
		cfg.Start1(f)
		cfg.Connect(f)
		caught := cfg.World().RunUntil(func() bool { return cfg.LastApplied(f) >= last }, 20*time.Second)
		if !c.keeps {
			assert.Greater(t, cfg.CheckTerms(), term, "%s: the message costs the leader its term (the test's premise)", c.name)
			continue
		}
		assert.True(t, caught, "%s: the follower caught up", c.name)
		assert.Equal(t, term, cfg.CheckTerms(), "%s: no election while the follower catches up", c.name)
		assert.Equal(t, l, cfg.CheckOneLeader(), c.name)
	}
}
