package shrink

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
)

func step(at int64, f fault.Fault) runfile.Step { return runfile.Step{At: at, Fault: f} }

// TestUnits pairs each strike with the step that heals it specifically,
// and leaves the heals of everything in the frame.
func TestUnits(t *testing.T) {
	steps := []runfile.Step{
		step(0, fault.Fault{Kind: fault.Kill, Host: 1}),
		step(1, fault.Fault{Kind: fault.Partition, Groups: [][]int{{0}, {1, 2}}}),
		step(2, fault.Fault{Kind: fault.Restart, Host: 2}), // heals nothing struck
		step(3, fault.Fault{Kind: fault.Isolate, Host: 4}),
		step(4, fault.Fault{Kind: fault.Restart, Host: 1}),
		step(5, fault.Fault{Kind: fault.Heal}),
		step(6, fault.Fault{Kind: fault.Unreliable, On: true}),
		step(7, fault.Fault{Kind: fault.Rejoin, Host: 4}),
		step(8, fault.Fault{Kind: fault.Unreliable}),
	}
	us, frame := units(steps)
	var got [][]int
	for _, u := range us {
		var ords []int
		for _, it := range u {
			ords = append(ords, it.ord)
		}
		got = append(got, ords)
	}
	assert.Equal(t, [][]int{{0, 4}, {1}, {3, 7}, {6, 8}}, got)
	require.Len(t, frame, 2)
	assert.Equal(t, []int{2, 5}, []int{frame[0].ord, frame[1].ord})
	assert.Equal(t, steps, compose(frame, us), "all of them, in their order")
	assert.Equal(t, []runfile.Step{steps[1], steps[2], steps[5]}, compose(frame, us[1:2]))
}

// TestRemap renames the hosts faults name and drops the faults on hosts
// gone: a side of a partition loses them, a partition with no side left
// goes.
func TestRemap(t *testing.T) {
	steps := []runfile.Step{
		step(0, fault.Fault{Kind: fault.Partition, Groups: [][]int{{0, 3}, {4}}}),
		step(1, fault.Fault{Kind: fault.Partition, Groups: [][]int{{3}, {4}}}),
		step(2, fault.Fault{Kind: fault.Cut, Host: 0, To: 5}),
		step(3, fault.Fault{Kind: fault.Cut, Host: 4, To: 0}),
		step(4, fault.Fault{Kind: fault.Kill, Host: 2}),
		step(5, fault.Fault{Kind: fault.Heal}),
	}
	// Five servers down to three: 3 and 4 go, the client host 5 becomes 3.
	got := remap(steps, func(h int) (int, bool) {
		switch {
		case h < 3:
			return h, true
		case h < 5:
			return 0, false
		}
		return h - 2, true
	})
	assert.Equal(t, []runfile.Step{
		step(0, fault.Fault{Kind: fault.Partition, Groups: [][]int{{0}}}),
		step(2, fault.Fault{Kind: fault.Cut, Host: 0, To: 3}),
		step(4, fault.Fault{Kind: fault.Kill, Host: 2}),
		step(5, fault.Fault{Kind: fault.Heal}),
	}, got)
}

// TestApplyRefuses refuses edits a run cannot take, naming them.
func TestApplyRefuses(t *testing.T) {
	r := testbed.Run{Name: "r", Deploy: cluster.Config{Hosts: 3, Groups: []cluster.Group{{Replicas: 3, Hosts: []int{0, 1, 2}}}}}
	_, err := Apply(r, runfile.Shrunk{Servers: 2, Nemesis: &runfile.Schedule{}})
	assert.EqualError(t, err, "r: servers 2: only a run of one group on hosts of its own can change its servers")
	r.Deploy = cluster.Config{Groups: []cluster.Group{{Replicas: 3}}}
	_, err = Apply(r, runfile.Shrunk{Servers: 2})
	assert.EqualError(t, err, "r: servers 2: a nemesis whose faults name the servers must come with them")
	_, err = Apply(r, runfile.Shrunk{Clients: []int{1}})
	assert.EqualError(t, err, "r: clients [1]: its workload cannot change its clients")
	r.Workload = &testbed.KV{Clients: 3}
	_, err = Apply(r, runfile.Shrunk{Clients: []int{1}})
	assert.EqualError(t, err, "r: kv workload: 1 counts [1]: want clients and readers")
	_, err = Apply(r, runfile.Shrunk{Length: -1})
	assert.EqualError(t, err, "r: length -1ns is negative")
	got, err := Apply(r, runfile.Shrunk{Servers: 1, Clients: []int{1, 0}, Length: int64(time.Second), Skip: []int{2},
		Nemesis: &runfile.Schedule{Steps: []runfile.Step{step(5, fault.Fault{Kind: fault.Heal})}, Heals: []int64{7}}})
	require.NoError(t, err)
	assert.Equal(t, 1, got.Deploy.Groups[0].Replicas)
	assert.Equal(t, []int{1, 0}, got.Workload.(*testbed.KV).Counts())
	assert.Equal(t, time.Second, got.Length)
	assert.Equal(t, testbed.Nemesis{Schedule: []chaos.Step{{At: 5, Fault: fault.Fault{Kind: fault.Heal}}}, Heals: []time.Duration{7}, Skip: []int{2}}, got.Nemesis)
}

func TestSizeString(t *testing.T) {
	assert.Equal(t, "2 faults, 2 503 operations, 6s, 5 servers, 1 client", Size{Faults: 2, Ops: 2503, Length: 6 * time.Second, Servers: 5, Clients: 1}.String())
	assert.Equal(t, "1 fault, 140 operations, 1.2s, 1 server", Size{Faults: 1, Ops: 140, Length: 1200 * time.Millisecond, Servers: 1}.String())
	assert.Equal(t, "a panic, 1.2s, 3 servers", Size{Length: 1200 * time.Millisecond, Servers: 3, Panicked: true}.String())
}
