package logorder

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm/wire"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlotsAndOwners(t *testing.T) {
	assert.Equal(t, 0, SlotOf(""))
	assert.Equal(t, 97<<8, SlotOf("a"))
	assert.Equal(t, 97<<8|98, SlotOf("abc"))
	assert.Less(t, SlotOf("~~"), Slots)
	l := DefaultLayout(5, 2)
	require.NoError(t, l.Validate())
	assert.Equal(t, []int{2, 3}, l.Owners("a"), "range 97 of 128 starts at node 97 mod 5")
	assert.Equal(t, []int{4, 0}, l.Owners("c"), "and wraps round")
	for _, k := range []string{"a", "c", "zz", " x", "~"} {
		for n := range 5 {
			assert.Equal(t, strings.Contains(fmt.Sprint(l.Owners(k)), fmt.Sprint(n)), l.Owns(n, k), "node %d, key %q", n, k)
		}
	}
	one := Layout{Nodes: 3, Replicas: 1, Ranges: 1}
	assert.Equal(t, []int{0}, one.Owners("~~"), "one range: node 0 keeps every key")
	three := Layout{Nodes: 3, Replicas: 3, Ranges: 3}
	assert.Equal(t, []int{1, 2, 0}, three.Owners("U"), "slot 0x5500 is in the second of three ranges")
	for l, want := range map[Layout]string{
		{Nodes: 0, Replicas: 1, Ranges: 1}:         "logorder: a layout of 0 nodes",
		{Nodes: 2, Replicas: 0, Ranges: 1}:         "logorder: replication factor 0 is not in 1…2 (the nodes)",
		{Nodes: 2, Replicas: 3, Ranges: 1}:         "logorder: replication factor 3 is not in 1…2 (the nodes)",
		{Nodes: 2, Replicas: 2, Ranges: 0}:         "logorder: 0 ranges is not in 1…32768",
		{Nodes: 2, Replicas: 2, Ranges: 1 << 15}:   "",
		{Nodes: 2, Replicas: 2, Ranges: Slots + 1}: "logorder: 32769 ranges is not in 1…32768",
	} {
		if want == "" {
			assert.NoError(t, l.Validate())
		} else {
			assert.EqualError(t, l.Validate(), want)
		}
	}
}

func TestCheckKey(t *testing.T) {
	assert.NoError(t, CheckKey(" ~"))
	assert.NoError(t, CheckKey(strings.Repeat("k", MaxKey)))
	assert.EqualError(t, CheckKey(""), "logorder: an empty key")
	assert.ErrorContains(t, CheckKey(strings.Repeat("k", MaxKey+1)), "of 128 bytes (at most 127)")
	assert.EqualError(t, CheckKey("a\x1f"), `logorder: key "a\x1f": byte 1 (0x1f) is not printable ASCII`)
	assert.EqualError(t, CheckKey("a\x7f"), `logorder: key "a\x7f": byte 1 (0x7f) is not printable ASCII`)
}

func TestStoreVersions(t *testing.T) {
	st := newStore()
	st.put("k", 5, "a")
	st.put("k", 9, "b")
	st.put("k", 7, "x")
	for tid, want := range map[int]string{4: "", 5: "a", 6: "a", 7: "x", 8: "x", 9: "b", 100: "b"} {
		v, found := st.get("k", tid)
		assert.Equal(t, want, v, "as of %d", tid)
		assert.Equal(t, want != "", found, "as of %d", tid)
	}
	before := st.appendTo(nil)
	st.put("k", 7, "x")
	assert.Equal(t, before, st.appendTo(nil), "writing a tid's version again changes nothing")
	assert.Equal(t, 3, st.versions())
	assert.True(t, st.readable(0))
	st.collect(8)
	assert.Equal(t, 8, st.horizon)
	assert.True(t, st.readable(8), "reads as of the horizon are served")
	assert.False(t, st.readable(7))
	assert.Equal(t, 2, st.versions(), "the version of 7 is the value as of 8; 5's is gone")
	v, _ := st.get("k", 8)
	assert.Equal(t, "x", v)
	st.collect(3)
	assert.Equal(t, 8, st.horizon, "the horizon never goes back")
	st.put("j", 1, "only")
	st.collect(50)
	assert.Equal(t, 2, st.versions(), "the newest version of each key stays")
	d := wire.NewDecoder(st.appendTo(nil))
	again := decodeStore(d)
	require.NoError(t, d.Done())
	assert.Equal(t, st, again)
}

func TestCommitCache(t *testing.T) {
	c := newCommitCache(2, false)
	c.add(1, []Write{{"a", "1"}, {"b", "1"}})
	c.add(2, []Write{{"a", "2"}})
	c.add(3, nil)
	v, ok := c.get("a")
	assert.True(t, ok)
	assert.Equal(t, "2", v)
	v, _ = c.get("b")
	assert.Equal(t, "1", v)
	c.add(4, []Write{{"c", "4"}})
	_, ok = c.get("b")
	assert.False(t, ok, "tid 1 was evicted, the oldest of three")
	v, _ = c.get("a")
	assert.Equal(t, "2", v, "a's newest value, of tid 2, stays")
	assert.Equal(t, 2, c.len())
	c.invalidate([]Write{{"a", "?"}})
	_, ok = c.get("a")
	assert.False(t, ok)
	c.add(5, []Write{{"d", "5"}})
	assert.Equal(t, 2, c.len(), "c and d")

	off := newCommitCache(0, false)
	off.add(1, []Write{{"a", "1"}})
	assert.Zero(t, off.len())
	bug := newCommitCache(2, true)
	bug.add(1, []Write{{"a", "1"}})
	bug.invalidate([]Write{{"a", "?"}})
	assert.Equal(t, 1, bug.len(), "the planted bug keeps a's stale value")
}

func TestTxnCheck(t *testing.T) {
	ok := Txn{Snapshot: 1, Reads: []Read{{Key: "a"}}, Writes: []Write{{Key: "b", Value: "v"}}}
	assert.NoError(t, ok.check())
	assert.NoError(t, Txn{Reads: []Read{{Key: "a"}}}.check(), "read-only")
	big := make([]Write, MaxKeys+1)
	for i, want := range map[int]string{
		0: "logorder: an empty transaction",
		1: "logorder: snapshot tid -1 is negative",
		2: "logorder: a transaction of 0 reads and 1025 writes (at most 1024 of each)",
		3: "logorder: an empty key",
		4: "logorder: key \"a\\n\": byte 1 (0xa) is not printable ASCII",
		5: "logorder: put b: value of 65537 bytes (at most 65536)",
		6: "logorder: a transaction of 1025 reads and 0 writes (at most 1024 of each)",
	} {
		bad := []Txn{{Snapshot: 1}, {Snapshot: -1, Writes: ok.Writes}, {Writes: big}, {Reads: []Read{{}}},
			{Writes: []Write{{Key: "a\n"}}}, {Writes: []Write{{Key: "b", Value: strings.Repeat("v", MaxValue+1)}}},
			{Reads: make([]Read, MaxKeys+1)}}[i]
		assert.EqualError(t, bad.check(), want)
	}
	assert.Equal(t, "APPLIED", Applied.String())
	assert.Equal(t, "CONFLICT_IGNORED", ConflictIgnored.String())
	assert.Equal(t, "REJECTED", Rejected.String())
	assert.Equal(t, "Outcome(0)", Outcome(0).String())
	assert.Equal(t, "Outcome(4)", Outcome(4).String())
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	for want, change := range map[string]func(*Config){
		"logorder: RSM.MaxRaftState 100: must be -1; nodes snapshot their own state and trim the log themselves (SnapshotEvery)": func(c *Config) { c.RSM.MaxRaftState = 100 },
		"logorder: SnapshotEvery -1 is negative":     func(c *Config) { c.SnapshotEvery = -1 },
		"logorder: CacheSize -1 is negative":         func(c *Config) { c.CacheSize = -1 },
		"logorder: Versions 0 must be positive":      func(c *Config) { c.Versions = 0 },
		"logorder: ReadWait 0s must be positive":     func(c *Config) { c.ReadWait = 0 },
		"logorder: RPCTimeout -1ns must be positive": func(c *Config) { c.RPCTimeout = -1 },
		"logorder: a layout of 0 nodes":              func(c *Config) { c.Layout.Nodes = 0 },
		"rsm: unknown read mode 7":                   func(c *Config) { c.RSM.Reads = 7 },
	} {
		c := DefaultConfig()
		change(&c)
		assert.EqualError(t, c.Validate(), want)
	}
	c := DefaultConfig()
	c.SnapshotEvery, c.CacheSize, c.ReadWait = 0, 0, time.Nanosecond
	assert.NoError(t, c.Validate(), "no snapshots, no cache")
}

func TestMachineSnapshot(t *testing.T) {
	m := &machine{me: 1, st: newStore(), index: func() int { return 3 }, queuedFn: func() {}}
	m.st.put("a", 2, "x")
	m.processed = 2
	assert.Equal(t, 3, m.Apply(command{Txn: Txn{Writes: []Write{{"a", "y"}}}}))
	snap := m.Snapshot()
	n := &machine{me: 1, st: newStore()}
	require.NoError(t, n.Restore(snap))
	assert.Equal(t, 2, n.processed)
	assert.Equal(t, m.st, n.st)
	assert.Equal(t, m.queue, n.queue, "the queued transaction comes back")
	assert.ErrorIs(t, (&machine{me: 1}).Restore(snap[:len(snap)-1]), wire.ErrTruncated)
	assert.EqualError(t, (&machine{me: 2}).Restore(snap), "logorder: node 1's snapshot given to node 2")
	n.index = func() int { return 3 }
	n.Apply(command{})
	assert.Len(t, n.queue, 1, "an entry the snapshot queued is not queued again")
	m.index = func() int { return 2 }
	m.queue = nil
	m.Apply(command{})
	assert.Empty(t, m.queue, "an entry the snapshot covers is not queued again")
}

// A commit's error says what became of the transaction: rejected, with
// nothing applied, or logged with an outcome no one can work out again.
func TestCommitErrors(t *testing.T) {
	assert.NoError(t, commitErr(&CommitReply{Err: OK, Tid: 3}))
	err := commitErr(&CommitReply{Err: ErrTooOld, Tid: 3})
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, ErrRejected)
	assert.EqualError(t, err, "logorder: the outcome of tid 3 is no longer known: its versions are collected")
	err = commitErr(&CommitReply{Err: ErrBadRequest, Reason: "logorder: snapshot tid 9 is not before the transaction's tid 3"})
	assert.ErrorIs(t, err, ErrRejected)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.EqualError(t, err, "logorder: snapshot tid 9 is not before the transaction's tid 3")
}

// A silent node is avoided for twice the timeout, then twice as long at
// each failure more, up to maxAvoid (or twice the timeout, if longer);
// an answer starts it over.
func TestAvoidanceDoubles(t *testing.T) {
	w := sim.NewWorld(1)
	n := newNodes(w.NewHost("h"), make([]*labrpc.ClientEnd, 2), 300*time.Millisecond)
	var got []time.Duration
	for range 7 {
		n.shun(1)
		got = append(got, n.avoid[1]-w.Now())
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{600 * ms, 1200 * ms, 2400 * ms, 4800 * ms, 5 * time.Second, 5 * time.Second, 5 * time.Second}, got)
	assert.Zero(t, n.avoid[0], "the other node is not avoided")
	n.strikes[1] = 0 // it answered
	n.shun(1)
	assert.Equal(t, 600*ms, n.avoid[1]-w.Now())
	long := newNodes(w.NewHost("g"), make([]*labrpc.ClientEnd, 1), 5*time.Second)
	long.shun(0)
	long.shun(0)
	assert.Equal(t, 10*time.Second, long.avoid[0]-w.Now(), "twice a timeout longer than maxAvoid")
}
