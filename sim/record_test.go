package sim

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type events []Event

func (es *events) Record(e Event) { *es = append(*es, e) }

type counter struct{ n int }

func (c *counter) Inspect() []Field { return []Field{{"n", strconv.Itoa(c.n)}} }

func TestRecordingSeesTimersKillsRestartsAndDrift(t *testing.T) {
	w := NewWorld(1)
	var got events
	require.False(t, w.Recording())
	w.SetRecorder(&got)
	require.True(t, w.Recording())
	h := w.NewHost("a")
	h.NewTimer(func() {}).Reset(time.Second)
	w.Run(2 * time.Second)
	require.NoError(t, h.SetClockRate(1.5))
	h.Kill()
	h.Restart()
	w.NewTimer(func() {}).Reset(time.Second)
	w.Run(time.Second)
	w.SetRecorder(nil)
	h.Kill()
	assert.Equal(t, events{
		{At: time.Second, Kind: KindTimer, Host: 0, Peer: -1},
		{At: 2 * time.Second, Kind: KindDrift, Host: 0, Peer: -1, What: "rate 1.5"},
		{At: 2 * time.Second, Kind: KindKill, Host: 0, Peer: -1},
		{At: 2 * time.Second, Kind: KindRestart, Host: 0, Peer: -1},
		{At: 3 * time.Second, Kind: KindTimer, Host: -1, Peer: -1},
	}, got)
}

func TestStateShowsTheIncarnationsInspectors(t *testing.T) {
	w := NewWorld(1)
	h := w.NewHost("a")
	assert.Nil(t, h.State())
	c := &counter{n: 3}
	h.Inspect("raft", c)
	h.Inspect("kv", &counter{n: 7})
	assert.Equal(t, []Field{{"raft.n", "3"}, {"kv.n", "7"}}, h.State())
	c.n = 4
	h.Inspect("kv", &counter{n: 8})
	assert.Equal(t, []Field{{"raft.n", "4"}, {"kv.n", "8"}}, h.State(), "a name added again replaces its inspector")
	h.Kill()
	assert.Nil(t, h.State(), "a dead host shows nothing")
	h.Restart()
	assert.Nil(t, h.State(), "the dead incarnation's inspectors went with it")
	h.Inspect("raft", c)
	assert.Equal(t, []Field{{"raft.n", "4"}}, h.State())
}
