package sim

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventsFireInTimeThenInsertionOrder(t *testing.T) {
	w := NewWorld(1)
	var got []string
	w.After(20*time.Millisecond, func() { got = append(got, "c") })
	w.After(10*time.Millisecond, func() { got = append(got, "a") })
	w.After(10*time.Millisecond, func() { got = append(got, "b") })
	w.After(0, func() {
		got = append(got, "now")
		w.After(0, func() { got = append(got, "now2") })
	})
	w.Run(time.Second)
	assert.Equal(t, []string{"now", "now2", "a", "b", "c"}, got)
	assert.Equal(t, time.Second, w.Now())
	assert.EqualValues(t, 5, w.Events())
}

func TestTimerStopAndReset(t *testing.T) {
	w := NewWorld(1)
	var fired []time.Duration
	tm := w.NewTimer(func() { fired = append(fired, w.Now()) })
	tm.Reset(100 * time.Millisecond)
	assert.True(t, tm.Pending())
	w.Run(50 * time.Millisecond)
	tm.Reset(100 * time.Millisecond) // pushes it to 150ms
	w.Run(200 * time.Millisecond)
	assert.Equal(t, []time.Duration{150 * time.Millisecond}, fired)
	assert.False(t, tm.Pending())

	tm.Reset(10 * time.Millisecond)
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop())
	w.Run(time.Second)
	assert.Len(t, fired, 1)
	assert.Equal(t, 0, w.Pending())
}

func TestResetTimersDoNotGrowTheQueue(t *testing.T) {
	w := NewWorld(1)
	tm := w.NewTimer(func() {})
	for range 100_000 {
		tm.Reset(time.Second)
	}
	assert.Equal(t, 1, w.Pending())
	assert.Equal(t, 1, w.q.len(), "a reset timer moves its event instead of adding one")
}

func TestKillCompactsTheQueue(t *testing.T) {
	w := NewWorld(1)
	h, g := w.NewHost("h"), w.NewHost("g")
	fired := 0
	for i := range 3000 {
		h.After(time.Duration(i)*time.Microsecond, func() { fired += 1000 })
	}
	tm := h.NewTimer(func() { fired += 1000 })
	tm.Reset(time.Millisecond)
	var gAt time.Duration
	g.After(5*time.Millisecond, func() { fired++ })
	gt := g.NewTimer(func() { fired++; gAt = w.Now() })
	gt.Reset(6 * time.Millisecond)
	assert.Equal(t, 3003, w.q.len())

	h.Kill()
	assert.Equal(t, 2, w.q.len(), "the dead host's events are compacted away at once")
	assert.Equal(t, 2, w.Pending())
	assert.False(t, tm.Pending())
	assert.False(t, tm.Stop(), "a dead host's timer is not armed")
	gt.Reset(7 * time.Millisecond) // a live timer's event moved by the compaction still resets
	w.Run(time.Second)
	assert.Equal(t, 2, fired)
	assert.Equal(t, 7*time.Millisecond, gAt)
}

func TestCompactionKeepsTheOrder(t *testing.T) {
	w := NewWorld(1)
	dead, live := w.NewHost("dead"), w.NewHost("live")
	for range 3000 {
		dead.After(w.RandDuration(0, time.Second), func() { t.Fatal("a dead host's event fired") })
	}
	var fired []time.Duration
	timers := make([]*Timer, 50)
	for i := range timers {
		timers[i] = live.NewTimer(func() { fired = append(fired, w.Now()) })
		timers[i].Reset(w.RandDuration(0, time.Second))
	}
	for range 200 {
		live.After(w.RandDuration(0, time.Second), func() { fired = append(fired, w.Now()) })
	}
	dead.Kill()
	require.Equal(t, 250, w.q.len(), "compacted")
	for _, tm := range timers[:10] {
		tm.Reset(w.RandDuration(0, time.Second)) // moved after the compaction
	}
	for _, tm := range timers[10:20] {
		assert.True(t, tm.Stop())
	}
	w.Run(2 * time.Second)
	assert.Len(t, fired, 240)
	assert.IsNonDecreasing(t, fired)
}

func TestRunAndRunUntilIncludeTheirLastInstant(t *testing.T) {
	w := NewWorld(1)
	fired := 0
	w.After(10*time.Millisecond, func() { fired++ })
	w.Run(10 * time.Millisecond)
	assert.Equal(t, 1, fired, "Run(d) fires what is due at now+d")
	w.After(10*time.Millisecond, func() { fired++ })
	assert.True(t, w.RunUntil(func() bool { return fired == 2 }, 10*time.Millisecond))
	assert.Equal(t, 20*time.Millisecond, w.Now())
}

func TestPendingCountsOnlyLiveEventsAcrossKills(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	for range 3 {
		h.After(time.Millisecond, func() {})
	}
	w.Run(time.Second)
	for range 2 {
		h.After(time.Millisecond, func() {})
	}
	w.After(time.Millisecond, func() {})
	assert.Equal(t, 3, w.Pending())
	h.Kill()
	assert.Equal(t, 1, w.Pending(), "the host's two events are gone; the world's is not")
	h.Restart()
	h.After(time.Millisecond, func() {})
	assert.Equal(t, 2, w.Pending())
	w.Run(time.Second)
	assert.Equal(t, 0, w.Pending())
	assert.EqualValues(t, 5, w.Events())
}

func TestCompactionDownToOneTimer(t *testing.T) {
	w := NewWorld(1)
	dead, live := w.NewHost("dead"), w.NewHost("live")
	for range 2000 {
		dead.After(time.Second, func() {})
	}
	fired := 0
	tm := live.NewTimer(func() { fired++ })
	tm.Reset(2 * time.Second)
	dead.Kill()
	require.Equal(t, 1, w.q.len())
	tm.Reset(time.Second) // finds its event where the compaction left it
	w.Run(1500 * time.Millisecond)
	assert.Equal(t, 1, fired)
	tm.Reset(time.Second)
	assert.True(t, tm.Stop())
	assert.Equal(t, 0, w.q.len())
}

func TestStoppingADeadHostsTimerEmptiesTheQueue(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	tm := h.NewTimer(func() { t.Fatal("a dead host's timer fired") })
	tm.Reset(time.Second)
	h.Kill()
	assert.Equal(t, 1, w.q.len(), "a few stale events wait to be dropped")
	assert.Equal(t, 0, w.Pending())
	assert.False(t, tm.Stop())
	assert.Equal(t, 0, w.q.len(), "stopping took it out")
	h.Restart()
	tm.Reset(time.Millisecond)
	assert.False(t, tm.Pending())
	assert.False(t, w.Step())
}

func TestRunUntil(t *testing.T) {
	w := NewWorld(1)
	n := 0
	tick := w.NewTimer(nil)
	tick.fn = func() { n++; tick.Reset(10 * time.Millisecond) }
	tick.Reset(10 * time.Millisecond)

	require.True(t, w.RunUntil(func() bool { return n == 5 }, time.Second))
	assert.Equal(t, 50*time.Millisecond, w.Now())

	require.False(t, w.RunUntil(func() bool { return false }, time.Second))
	assert.Equal(t, 1050*time.Millisecond, w.Now(), "a failed RunUntil leaves the clock at its limit")

	empty := NewWorld(1)
	require.False(t, empty.RunUntil(func() bool { return false }, time.Hour), "an empty queue does not hang")
	assert.Equal(t, time.Hour, empty.Now())
}

func TestKillDropsHostEventsAndRestartStartsClean(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	var fired []string
	h.After(10*time.Millisecond, func() { fired = append(fired, "event") })
	tm := h.NewTimer(func() { fired = append(fired, "timer") })
	tm.Reset(20 * time.Millisecond)
	w.After(30*time.Millisecond, func() { fired = append(fired, "world") })

	require.True(t, h.Kill())
	assert.False(t, h.Kill(), "killing a dead host changes nothing")
	assert.EqualValues(t, 1, h.Incarnation(), "one kill")
	assert.False(t, h.Alive())
	assert.False(t, tm.Pending())
	h.After(time.Millisecond, func() { fired = append(fired, "while dead") })

	require.True(t, h.Restart())
	assert.False(t, h.Restart())
	tm.Reset(time.Millisecond) // a timer of the dead incarnation stays dead
	h.After(5*time.Millisecond, func() { fired = append(fired, "reborn") })

	w.Run(time.Second)
	assert.Equal(t, []string{"reborn", "world"}, fired)
	assert.Equal(t, 0, w.Pending())
}

func TestPersisterSurvivesKillAndIsDetachedFromTheDead(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	old := h.Persister()
	old.Save([]byte("state"), []byte("snap"))
	h.Kill()
	old.Save([]byte("zombie write"), nil)
	h.Restart()
	assert.Equal(t, []byte("state"), h.Persister().ReadRaftState())
	assert.Equal(t, []byte("snap"), h.Persister().ReadSnapshot())
	assert.Equal(t, 5, h.Persister().RaftStateSize())
	assert.Equal(t, 4, h.Persister().SnapshotSize())

	b := h.Persister().ReadRaftState()
	b[0] = 'X'
	assert.Equal(t, []byte("state"), h.Persister().ReadRaftState(), "reads return copies")
}

func TestNamedPersisters(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	a, b := h.PersisterNamed("g0/1"), h.PersisterNamed("g1/1")
	assert.Same(t, a, h.PersisterNamed("g0/1"), "one persister per name")
	assert.NotSame(t, a, h.Persister())
	a.Save([]byte("a"), nil)
	b.Save([]byte("b"), nil)
	h.Kill()
	a.Save([]byte("zombie write"), nil)
	h.Restart()
	assert.Equal(t, []byte("a"), h.PersisterNamed("g0/1").ReadRaftState(), "survives the kill, detached from the dead")
	assert.Equal(t, []byte("b"), h.PersisterNamed("g1/1").ReadRaftState())
	assert.Zero(t, h.Persister().RaftStateSize())
}

func TestClockDrift(t *testing.T) {
	w := NewWorld(1)
	fast, slow := w.NewHost("fast"), w.NewHost("slow")
	require.NoError(t, fast.SetClockRate(2))
	require.NoError(t, slow.SetClockRate(0.5))
	var fastAt, slowAt time.Duration
	fast.After(100*time.Millisecond, func() { fastAt = w.Now() })
	slow.After(100*time.Millisecond, func() { slowAt = w.Now() })
	w.Run(time.Second)
	assert.InDelta(t, 50*time.Millisecond, fastAt, 2)
	assert.InDelta(t, 200*time.Millisecond, slowAt, 2)
	assert.Equal(t, 2*time.Second, fast.Now())
	assert.Equal(t, 500*time.Millisecond, slow.Now())

	require.NoError(t, fast.SetClockRate(1))
	w.Run(time.Second)
	assert.Equal(t, 3*time.Second, fast.Now(), "a rate change keeps the local time reached so far")
}

// churn is a workload that exercises timers, hosts, kills and randomness.
func churn(seed int64) Summary {
	w := NewWorld(seed)
	hs, _ := w.NewHosts(5, "h")
	for _, h := range hs {
		h := h
		var tm *Timer
		tm = h.NewTimer(func() { tm.Reset(w.RandDuration(time.Millisecond, 50*time.Millisecond)) })
		tm.Reset(w.RandDuration(0, 10*time.Millisecond))
	}
	w.After(0, func() {})
	for i := range 50 {
		w.After(time.Duration(i)*100*time.Millisecond, func() {
			h := hs[w.Rand().IntN(len(hs))]
			if h.Alive() {
				h.Kill()
			} else {
				h.Restart()
				var tm *Timer
				tm = h.NewTimer(func() { tm.Reset(w.RandDuration(time.Millisecond, 50*time.Millisecond)) })
				tm.Reset(time.Millisecond)
			}
		})
	}
	w.Run(6 * time.Second)
	return w.Summary()
}

func TestSameSeedSameTraceDifferentSeedDifferentTrace(t *testing.T) {
	a, b, c := churn(7), churn(7), churn(8)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a.Hash, c.Hash)
	assert.Greater(t, a.Events, uint64(500))
}

func TestBadInput(t *testing.T) {
	w := NewWorld(1)
	_, err := w.NewHosts(0, "h")
	assert.ErrorContains(t, err, "got 0")
	h := w.NewHost("h")
	assert.EqualError(t, h.SetClockRate(-1), "sim: clock rate -1 is outside [0.001, 1000] (host h)")
	assert.PanicsWithValue(t, "sim: negative delay -1ms", func() { w.After(-time.Millisecond, func() {}) })
	assert.PanicsWithValue(t, "sim: negative delay -1s", func() { w.Run(-time.Second) })
	assert.Panics(t, func() { h.NewTimer(func() {}).Reset(-1) })
}

func TestHugeDelaysPanicInsteadOfWrappingTheClock(t *testing.T) {
	w := NewWorld(1)
	w.Run(time.Second)
	h := w.NewHost("h")
	const huge = time.Duration(math.MaxInt64)
	const msg = "sim: delay 2562047h47m16.854775807s from virtual time 1s overflows the virtual clock"
	assert.PanicsWithValue(t, msg, func() { w.After(huge, func() {}) })
	assert.PanicsWithValue(t, msg, func() { w.Schedule(huge, Func(func() {})) })
	assert.PanicsWithValue(t, msg, func() { w.NewTimer(func() {}).Reset(huge) })
	assert.PanicsWithValue(t, msg, func() { w.Run(huge) })
	assert.PanicsWithValue(t, msg, func() { w.RunUntil(func() bool { return false }, huge) })
	assert.PanicsWithValue(t, msg, func() { h.ScheduleFor(h.Incarnation(), huge, Func(func() {})) })
	const onHost = "sim: delay 2562047h47m16.854775807s on host h overflows the virtual clock"
	assert.PanicsWithValue(t, onHost, func() { h.After(huge, func() {}) })
	assert.PanicsWithValue(t, onHost, func() { h.NewTimer(func() {}).Reset(huge) })

	// A slow clock stretches delays: 200 years at a thousandth of the
	// speed is far past the end of the virtual clock.
	require.NoError(t, h.SetClockRate(0.001))
	assert.PanicsWithValue(t, "sim: delay 1752000h0m0s on host h overflows the virtual clock",
		func() { h.After(200*365*24*time.Hour, func() {}) })
	require.NoError(t, h.SetTimerNoise(time.Hour))
	assert.Panics(t, func() { h.After(huge-time.Minute, func() {}) }, "noise on top of the delay")

	// The longest delays a host accepts, with noise and a slow clock.
	w2 := NewWorld(1)
	g := w2.NewHost("g")
	g.After(maxHostDelay, func() {})
	assert.PanicsWithValue(t, "sim: delay 1281023h53m38.427387904s on host g overflows the virtual clock",
		func() { g.After(maxHostDelay+1, func() {}) })
	require.NoError(t, g.SetTimerNoise(time.Hour))
	g.After(maxHostDelay-time.Hour, func() {})
	assert.Panics(t, func() { g.After(maxHostDelay-time.Hour+1, func() {}) }, "noise counts against the bound")
	require.NoError(t, g.SetTimerNoise(0))
	require.NoError(t, g.SetClockRate(0.001))
	const slowest = maxHostDelay / ppmOne * 1000
	g.After(slowest+999, func() {})
	assert.Panics(t, func() { g.After(slowest+1000, func() {}) })
	assert.Equal(t, 3, w2.Pending())

	// The largest delays that fit still work, and nothing was queued above.
	assert.Equal(t, 0, w.Pending())
	w.After(huge-time.Second, func() {})
	assert.Equal(t, 1, w.Pending())
}

func TestLivelockPanicsInsteadOfHanging(t *testing.T) {
	w := NewWorld(1)
	w.SetInstantLimit(1000)
	var loop func()
	loop = func() { w.After(0, loop) }
	w.After(time.Second, loop)
	assert.PanicsWithValue(t,
		"sim: 1001 events fired at virtual time 1s without the clock advancing: a livelock (see World.SetInstantLimit)",
		func() { w.Run(2 * time.Second) })
}

func TestTimerNoise(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	require.NoError(t, h.SetTimerNoise(5*time.Millisecond))
	var at []time.Duration
	for range 100 {
		h.After(10*time.Millisecond, func() { at = append(at, w.Now()) })
	}
	w.Run(time.Second)
	require.Len(t, at, 100)
	assert.GreaterOrEqual(t, at[0], 10*time.Millisecond)
	assert.LessOrEqual(t, at[99], 15*time.Millisecond)
	assert.NotEqual(t, at[0], at[99], "the timers no longer fire together")
	assert.EqualError(t, h.SetTimerNoise(-1), "sim: timer noise -1ns for host h is negative")
}

// TestQueueOrderUnderChurn checks the queue against a simple model: under a
// random mix of one-shot events and timers set, reset and stopped, every
// event fires exactly when it was last set for, in (time, setting order).
func TestQueueOrderUnderChurn(t *testing.T) {
	w := NewWorld(1)
	type setting struct {
		at    time.Duration
		order int
	}
	pending := map[int]setting{} // what should fire: by event ID
	var fired []setting
	order := 0
	set := func(id int, d time.Duration) {
		order++
		pending[id] = setting{w.Now() + d, order}
	}
	fire := func(id int) {
		s, ok := pending[id]
		require.True(t, ok, "event %d fired but was not pending", id)
		assert.Equal(t, s.at, w.Now(), "event %d fired at the wrong time", id)
		fired = append(fired, s)
		delete(pending, id)
	}
	timers := make([]*Timer, 30)
	for i := range timers {
		timers[i] = w.NewTimer(func() { fire(i) })
	}
	next := len(timers)
	for range 3000 {
		d := w.RandDuration(0, 20) // small, so that times often tie
		switch i := w.Rand().IntN(len(timers) + 10); {
		case i < len(timers) && w.Rand().IntN(4) == 0:
			timers[i].Stop()
			delete(pending, i)
		case i < len(timers):
			timers[i].Reset(d)
			set(i, d)
		default:
			id := next
			next++
			w.After(d, func() { fire(id) })
			set(id, d)
		}
		w.Run(w.RandDuration(0, 3))
		assert.Equal(t, len(pending), w.Pending())
	}
	w.Run(time.Second)
	assert.Empty(t, pending)
	assert.Greater(t, len(fired), 1000)
	for i := 1; i < len(fired); i++ {
		a, b := fired[i-1], fired[i]
		require.True(t, a.at < b.at || (a.at == b.at && a.order < b.order), "fired out of order: %v then %v", a, b)
	}
}

// TestLargeQueueOrder checks the heap at a depth the churn test does not
// reach: thousands of pending events, timers reset and stopped among them,
// and a compaction half-way, must still fire in (time, insertion) order,
// and the heap must be in order after the compaction and half-way through
// firing. Checking the heap itself lets four seeds do what twenty did by
// firing order alone (a heapify that skipped the last parent showed only
// in seed 4); TestCompactionHeapifiesFromTheLastParent pins that case.
func TestLargeQueueOrder(t *testing.T) {
	for seed := range int64(4) {
		largeQueueOrder(t, seed)
	}
}

func largeQueueOrder(t *testing.T, seed int64) {
	w := NewWorld(seed)
	type firing struct {
		at    time.Duration
		order int
	}
	var fired []firing
	order := 0
	record := func(o int) func() {
		return func() { fired = append(fired, firing{w.Now(), o}) }
	}
	dead := w.NewHost("dead")
	timers := make([]*Timer, 200)
	for i := range timers {
		timers[i] = w.NewTimer(nil)
	}
	for range 12000 {
		dead.After(w.RandDuration(0, 1000), func() { t.Fatal("a dead host's event fired") })
	}
	for step := range 20000 {
		d := w.RandDuration(0, 1000)
		switch k := w.Rand().IntN(10); {
		case k < 1:
			i := w.Rand().IntN(len(timers))
			order++
			timers[i] = w.NewTimer(record(order))
			timers[i].Reset(d)
		case k < 2:
			timers[w.Rand().IntN(len(timers))].Stop()
		default:
			order++
			w.After(d, record(order))
		}
		if step == 8000 {
			n := w.q.len()
			dead.Kill() // most of the queue is stale: it compacts
			require.Less(t, w.q.len(), n/2, "seed %d: the queue did not compact", seed)
			requireHeapOrder(t, &w.q, seed)
		}
	}
	w.Run(500) // half the events: the heap has been popped and sifted a while
	requireHeapOrder(t, &w.q, seed)
	w.Run(time.Second)
	require.Greater(t, len(fired), 10000, "seed %d", seed)
	for i := 1; i < len(fired); i++ {
		if a, b := fired[i-1], fired[i]; a.at > b.at || (a.at == b.at && a.order >= b.order) {
			t.Fatalf("seed %d: fired out of order at %d: %v then %v", seed, i, a, b)
		}
	}
}

// TestCompactionHeapifiesFromTheLastParent compacts a heap whose order,
// once the stale root is dropped, is broken only between the last parent
// and its child: heapifying must start at that parent and end at the root.
func TestCompactionHeapifiesFromTheLastParent(t *testing.T) {
	w := NewWorld(1)
	dead := w.NewHost("dead")
	dead.After(0, func() { t.Fatal("a dead host's event fired") })
	var fired []time.Duration
	for _, d := range []time.Duration{10, 20, 30, 40, 50, 15} { // 15 lands under 10, a child of 20's slot
		w.After(d, func() { fired = append(fired, w.Now()) })
	}
	requireHeapOrder(t, &w.q, 0)
	dead.Kill()
	w.q.compact() // [10 20 30 40 50 15]: 15 is now under 20
	requireHeapOrder(t, &w.q, 0)
	w.Run(time.Second)
	assert.Equal(t, []time.Duration{10, 15, 20, 30, 40, 50}, fired)
}

// requireHeapOrder fails t unless no entry of q's heap is before its
// parent and every slot knows where its entry is.
func requireHeapOrder(t *testing.T, q *queue, seed int64) {
	t.Helper()
	for i, en := range q.heap {
		if p := (i - 1) / 4; i > 0 && en.before(q.heap[p]) {
			t.Fatalf("seed %d: heap entry %d %v is before its parent %d %v", seed, i, en, p, q.heap[p])
		}
		if q.pos[en.slot] != int32(i) {
			t.Fatalf("seed %d: slot %d's entry is at %d, pos says %d", seed, en.slot, i, q.pos[en.slot])
		}
	}
}

func TestFoldedStringsAreToldApart(t *testing.T) {
	hashAfter := func(s string) uint64 {
		w := NewWorld(1)
		w.FoldString(s)
		return w.TraceHash()
	}
	words := map[uint64]string{}
	for _, s := range []string{"", "a", "b", "ab", "ba", "Raft.AppendEntries", "Raft.RequestVote"} {
		h := hashAfter(s)
		require.NotContains(t, words, h, "%q folds like %q", s, words[h])
		words[h] = s
		assert.NotEqual(t, NewWorld(1).TraceHash(), h, "folding %q changed nothing", s)
	}
	w := NewWorld(1)
	w.Fold(StringWord("Raft.RequestVote"))
	assert.Equal(t, hashAfter("Raft.RequestVote"), w.TraceHash(), "FoldString(s) is Fold(StringWord(s))")
}

// TestTraceShowsTimersAndHosts checks that a traced world writes a line,
// at its virtual time, when a timer fires and when a host dies or comes
// back.
func TestTraceShowsTimersAndHosts(t *testing.T) {
	w := NewWorld(1)
	var trace strings.Builder
	w.SetTraceWriter(&trace)
	h := w.NewHost("raft0")
	h.NewTimer(func() { h.Kill() }).Reset(300 * time.Millisecond)
	w.NewTimer(func() { h.Restart() }).Reset(time.Second)
	w.Run(2 * time.Second)
	assert.Equal(t, "         300ms  timer fires on raft0\n"+
		"         300ms  kill raft0\n"+
		"            1s  timer fires on the world\n"+
		"            1s  restart raft0\n", trace.String())
}

// TestDiskLatencyQueuesSaves gives a host a disk that takes 2 ms a write:
// a save made while a write is under way waits for the next, which takes
// every save made before it begins; an idle disk starts now; a persister
// the dead incarnation keeps no longer charges the host, and the queue
// dies with the host. Without a latency, saving is free.
func TestDiskLatencyQueuesSaves(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	h.Persister().Save([]byte("free"), nil)
	assert.Zero(t, h.DiskFree(), "no latency set: saving is free")
	require.NoError(t, h.SetDiskLatency(2*time.Millisecond))
	h.Persister().Save([]byte("a"), nil)
	h.PersisterNamed("g1").SaveNoCopy([]byte("b"), nil)
	assert.Equal(t, 4*time.Millisecond, h.DiskFree(), "the second save waits for the first's write to end")
	h.PersisterNamed("g2").Save([]byte("b"), nil)
	assert.Equal(t, 4*time.Millisecond, h.DiskFree(), "the third joins the second's write")
	w.Run(3 * time.Millisecond)
	h.Persister().Save([]byte("b2"), nil)
	assert.Equal(t, 6*time.Millisecond, h.DiskFree(), "the second write is under way: the next follows it")
	w.Run(10 * time.Millisecond)
	h.Persister().Save([]byte("c"), nil)
	assert.Equal(t, 15*time.Millisecond, h.DiskFree(), "an idle disk starts from now (13 ms)")
	old := h.Persister()
	h.Kill()
	assert.Zero(t, h.DiskFree(), "the queue died with the host")
	old.Save([]byte("dead"), nil)
	assert.Zero(t, h.DiskFree(), "the dead incarnation's persister is off the disk")
	h.Restart()
	h.Persister().Save([]byte("d"), nil)
	assert.Equal(t, 15*time.Millisecond, h.DiskFree(), "the new incarnation's is on it")
	assert.Error(t, h.SetDiskLatency(-1))
	assert.Equal(t, 5, h.DiskWrites(), "0-2, 2-4, 4-6, 13-15 ms and the new incarnation's; none while saving was free")
}

// TestDiskLogsSerializeTheirWrites checks SetDiskLogs: a save joins only
// its own persister's next write, and the disk does one write at a time,
// so two persisters' saves take two writes where one log takes one.
func TestDiskLogsSerializeTheirWrites(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	require.NoError(t, h.SetDiskLatency(2*time.Millisecond))
	h.SetDiskLogs(true)
	h.PersisterNamed("g1").Save([]byte("a"), nil)
	assert.Equal(t, 2*time.Millisecond, h.DiskFree(), "an idle disk starts g1's write now")
	h.PersisterNamed("g2").Save([]byte("b"), nil)
	assert.Equal(t, 4*time.Millisecond, h.DiskFree(), "g2's save waits for g1's write, in a write of its own")
	h.PersisterNamed("g1").Save([]byte("a2"), nil)
	assert.Equal(t, 6*time.Millisecond, h.DiskFree(), "g1's write under way: its next write follows g2's")
	h.PersisterNamed("g2").Save([]byte("b2"), nil)
	assert.Equal(t, 6*time.Millisecond, h.DiskFree(), "g2's queued write (2-4 ms) has not begun: the save joins it")
	assert.Equal(t, 3, h.DiskWrites(), "0-2 (g1), 2-4 (g2), 4-6 ms (g1)")

	one := NewWorld(1).NewHost("h")
	require.NoError(t, one.SetDiskLatency(2*time.Millisecond))
	for _, g := range []string{"g1", "g2", "g1", "g2"} {
		one.PersisterNamed(g).Save([]byte(g), nil)
	}
	assert.Equal(t, 2, one.DiskWrites(), "one log for the host: 0-2 ms, and one write for the three saves behind it")
}

// TestEventLimitEndsAStorm checks that a world past its event limit
// panics with a Storm that says how many events by when, and that no
// limit is the default.
func TestEventLimitEndsAStorm(t *testing.T) {
	tick := func(w *World) {
		var again func()
		again = func() { w.After(time.Millisecond, again) }
		w.After(time.Millisecond, again)
	}
	w := NewWorld(1)
	tick(w)
	w.Run(time.Second)
	assert.Equal(t, uint64(1000), w.Events(), "no limit by default")

	w = NewWorld(1)
	w.SetEventLimit(100)
	tick(w)
	defer func() {
		s, ok := recover().(Storm)
		require.True(t, ok, "a Storm")
		assert.Equal(t, Storm{Limit: 100, At: 101 * time.Millisecond}, s)
		assert.Equal(t, "storm: more than 100 events by virtual time 101ms (990 a virtual second)", s.Error())
	}()
	w.Run(time.Second)
	t.Fatal("the world ran past its limit")
}
