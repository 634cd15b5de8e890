package chaos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim"
)

type faults []sim.Event

func (fs *faults) Record(e sim.Event) {
	if e.Kind == sim.KindFault {
		*fs = append(*fs, e)
	}
}

func TestFaultsAreRecordedWithTheHostsTheyStrike(t *testing.T) {
	c := newCluster(t, 1, 3)
	var got faults
	c.w.SetRecorder(&got)
	for _, f := range []fault.Fault{
		{Kind: fault.Kill, Host: 2},
		{Kind: fault.Kill, Host: 2}, // changes nothing: not recorded
		{Kind: fault.Cut, Host: 0, To: 1},
		{Kind: fault.Partition, Groups: [][]int{{0}, {1, 2}}},
		{Kind: fault.Heal},
	} {
		require.NoError(t, c.m.Apply(f))
	}
	assert.Equal(t, faults{
		{Kind: sim.KindFault, Host: c.hosts[2].ID(), Peer: -1, What: "kill h2"},
		{Kind: sim.KindFault, Host: c.hosts[0].ID(), Peer: c.hosts[1].ID(), What: "cut h0 → h1"},
		{Kind: sim.KindFault, Host: -1, Peer: -1, What: "partition {h0} | {h1 h2}"},
		{Kind: sim.KindFault, Host: -1, Peer: -1, What: "heal"},
	}, got)
	assert.Equal(t, []int{c.hosts[0].ID(), c.hosts[1].ID(), c.hosts[2].ID()}, c.m.Struck(fault.Fault{Kind: fault.Partition, Groups: [][]int{{0}, {1, 2}}}))
}
