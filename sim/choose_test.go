package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testMsg is a message in flight for the tests: it appends its name to a
// log when delivered, or name+" dropped" when dropped.
type testMsg struct {
	name string
	log  *[]string
	w    *World // set: the message can be duplicated
}

func (m *testMsg) Fire() { *m.log = append(*m.log, m.name) }
func (m *testMsg) Message() (MessageInfo, bool) {
	return MessageInfo{From: 0, To: 1, What: m.name, Duplicable: m.w != nil}, true
}
func (m *testMsg) Drop() { *m.log = append(*m.log, m.name+" dropped") }
func (m *testMsg) Duplicate() {
	*m.log = append(*m.log, m.name+" duplicated")
	m.w.Schedule(0, &testMsg{name: m.name + "'", log: m.log})
}

// chooseWorld builds a world with two hosts exchanging messages on their
// timers, the shape of a small cluster.
func chooseWorld(seed int64) (*World, *[]string) {
	w := NewWorld(seed)
	hs, _ := w.NewHosts(2, "h")
	var log []string
	for i, h := range hs {
		var tm *Timer
		tm = h.NewTimer(func() {
			log = append(log, "tick "+h.Name())
			h.Schedule(w.RandDuration(0, 30*time.Millisecond), &testMsg{name: "ping from " + h.Name(), log: &log})
			tm.Reset(w.RandDuration(10*time.Millisecond, 20*time.Millisecond))
		})
		tm.Reset(time.Duration(i+1) * time.Millisecond)
	}
	return w, &log
}

func TestChoosingTheFirstIsStep(t *testing.T) {
	w1, log1 := chooseWorld(3)
	for range 500 {
		require.True(t, w1.Step())
	}
	w2, log2 := chooseWorld(3)
	var buf []Choice
	for range 500 {
		buf = w2.Enabled(buf)
		require.NotEmpty(t, buf)
		w2.Choose(buf[0], Deliver)
	}
	assert.Equal(t, w1.Summary(), w2.Summary())
	assert.Equal(t, *log1, *log2)
}

func TestEnabledDelaysMessagesNotTimers(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	var log []string
	h.Schedule(5*time.Millisecond, &testMsg{name: "a", log: &log})
	h.Schedule(7*time.Millisecond, &testMsg{name: "b", log: &log})
	h.Schedule(20*time.Millisecond, &testMsg{name: "late", log: &log})
	h.After(10*time.Millisecond, func() { log = append(log, "timer") })
	h.After(12*time.Millisecond, func() { log = append(log, "timer2") })

	cs := w.Enabled(nil)
	require.Len(t, cs, 3, "a, b and the first timer; not the second timer nor the late message: %v", cs)
	assert.True(t, cs[0].Message)
	assert.True(t, cs[1].Message)
	assert.False(t, cs[2].Message)
	assert.Equal(t, "b", cs[1].Info.What)

	w.Choose(cs[2], Deliver) // the timer first: a and b wait
	assert.Equal(t, 10*time.Millisecond, w.Now())
	cs = w.Enabled(cs)
	require.Len(t, cs, 3, "a, b and the second timer: %v", cs)
	w.Choose(cs[1], Deliver) // b, late: the clock stays
	assert.Equal(t, 10*time.Millisecond, w.Now())
	cs = w.Enabled(cs)
	require.Len(t, cs, 2)
	w.Choose(cs[0], Drop) // a, dropped
	assert.Equal(t, []string{"timer", "b", "a dropped"}, log)
	assert.Equal(t, 2, w.Pending(), "the second timer and the late message")
}

func TestChooseRefusesWhatIsNotQueued(t *testing.T) {
	w := NewWorld(1)
	w.After(time.Millisecond, func() {})
	cs := w.Enabled(nil)
	require.Len(t, cs, 1)
	assert.PanicsWithValue(t, "sim: Choose: cannot drop event of host -1 at 1ms, which is not a message", func() { w.Choose(cs[0], Drop) })
	assert.PanicsWithValue(t, "sim: Choose: cannot duplicate event of host -1 at 1ms", func() { w.Choose(cs[0], Duplicate) })
	w.Choose(cs[0], Deliver)
	assert.Panics(t, func() { w.Choose(cs[0], Deliver) })
	assert.Empty(t, w.Enabled(cs))
}

func TestDuplicateLeavesACopyInFlight(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("h")
	var log []string
	h.Schedule(5*time.Millisecond, &testMsg{name: "a", log: &log, w: w})
	h.Schedule(7*time.Millisecond, &testMsg{name: "b", log: &log})
	cs := w.Enabled(nil)
	require.Len(t, cs, 2)
	assert.True(t, cs[0].Info.Duplicable)
	assert.False(t, cs[1].Info.Duplicable)
	assert.Panics(t, func() { w.Choose(cs[1], Duplicate) })
	w.Choose(cs[0], Duplicate)
	cs = w.Enabled(cs)
	require.Len(t, cs, 2, "b and the copy of a")
	assert.Equal(t, "a'", cs[0].Info.What, "the copy is due now, before b")
	assert.Equal(t, 5*time.Millisecond, cs[0].At, "now: when a arrived")
	w.Choose(cs[0], Deliver)
	assert.Equal(t, []string{"a duplicated", "a", "a'"}, log)
}
