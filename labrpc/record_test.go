package labrpc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim"
)

type events []sim.Event

func (es *events) Record(e sim.Event) { *es = append(*es, e) }

// duplicated makes one call that is delivered twice, recording into rec
// if it is not nil, and returns the world's summary.
func duplicated(t *testing.T, rec sim.Recorder) sim.Summary {
	w, net, _, e := setup(1)
	if rec != nil {
		w.SetRecorder(rec)
	}
	p := net.Params()
	p.Duplicate = 1
	require.NoError(t, net.SetParams(p))
	var reply int
	e.Call("JunkServer.Handler6", "abc", &reply, func(bool) {})
	net.Reliable(false)
	p.RequestLoss, p.Duplicate = 1, 0
	require.NoError(t, net.SetParams(p))
	e.Call("JunkServer.Handler6", "lost", &reply, func(bool) {})
	w.Run(time.Minute)
	return w.Summary()
}

func TestCallsAreRecorded(t *testing.T) {
	var got events
	sum := duplicated(t, &got)
	assert.Equal(t, duplicated(t, nil), sum, "recording changes nothing in the run")
	server, client := 0, 1
	kinds := map[sim.Kind][]sim.Event{}
	for _, e := range got {
		require.Equal(t, "JunkServer.Handler6", e.What[:len("JunkServer.Handler6")], "every event names its method: %+v", e)
		kinds[e.Kind] = append(kinds[e.Kind], e)
	}
	require.Len(t, kinds[sim.KindSend], 2)
	send := kinds[sim.KindSend][0]
	assert.Equal(t, sim.Event{Kind: sim.KindSend, Host: client, Peer: server, ID: 1, Size: send.Size, What: "JunkServer.Handler6"}, send)
	assert.Positive(t, send.Size)
	require.Len(t, kinds[sim.KindDeliver], 1)
	require.Len(t, kinds[sim.KindDup], 1, "the second delivery is a dup")
	for _, e := range append(kinds[sim.KindDeliver], kinds[sim.KindDup]...) {
		assert.Equal(t, [4]int{server, client, 1, send.Size}, [4]int{e.Host, e.Peer, int(e.ID), e.Size})
	}
	require.Len(t, kinds[sim.KindReply], 2, "each delivery answers")
	assert.Equal(t, [3]int{server, client, 1}, [3]int{kinds[sim.KindReply][0].Host, kinds[sim.KindReply][0].Peer, int(kinds[sim.KindReply][0].ID)})
	assert.Positive(t, kinds[sim.KindReply][0].Size)
	require.Len(t, kinds[sim.KindLost], 1)
	assert.Equal(t, sim.Event{At: kinds[sim.KindLost][0].At, Kind: sim.KindLost, Host: client, Peer: server, ID: 2, What: "JunkServer.Handler6: request dropped"}, kinds[sim.KindLost][0])
	require.Len(t, kinds[sim.KindDone], 2)
	assert.Equal(t, "JunkServer.Handler6: ok", kinds[sim.KindDone][0].What)
	assert.Equal(t, "JunkServer.Handler6: failed", kinds[sim.KindDone][1].What)
	assert.Equal(t, [2]int{client, server}, [2]int{kinds[sim.KindDone][1].Host, kinds[sim.KindDone][1].Peer})
}
