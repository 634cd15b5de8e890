package viewtest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

func TestWant(t *testing.T) {
	role := func(r string) []sim.Field { return []sim.Field{{Name: "raft.role", Value: r}} }
	f := &runfile.File{
		Hosts: []string{"a", "b", "client"},
		Events: []runfile.Event{
			{Kind: sim.KindTimer, Host: 0, Peer: -1},   // 0
			{Kind: sim.KindTimer, Host: 1, Peer: -1},   // 1
			{Kind: sim.KindKill, Host: 1, Peer: -1},    // 2
			{Kind: sim.KindTimer, Host: 0, Peer: -1},   // 3
			{Kind: sim.KindRestart, Host: 1, Peer: -1}, // 4
			{Kind: sim.KindTimer, Host: 2, Peer: -1},   // 5: the client shows nothing
		},
		States: []runfile.State{
			{Event: 0, Host: 0, Fields: role("candidate")},
			{Event: 1, Host: 1, Fields: role("follower")},
			{Event: 2, Host: 1},
			{Event: 3, Host: 0, Fields: role("leader")},
			{Event: 4, Host: 1, Fields: role("follower")},
		},
	}
	up := func(r string) HostState { return HostState{Status: "up", Fields: map[string]string{"raft.role": r}} }
	assert.Equal(t, map[string]HostState{"0": up("candidate"), "1": {Status: "up", Fields: map[string]string{}}}, Want(f, 0))
	assert.Equal(t, map[string]HostState{"0": up("candidate"), "1": {Status: "down", Fields: map[string]string{}}}, Want(f, 2))
	assert.Equal(t, map[string]HostState{"0": up("leader"), "1": up("follower")}, Want(f, 5))
}

func TestAvailableSaysHowToInstall(t *testing.T) {
	if err := Available(); err != nil {
		assert.Contains(t, err.Error(), "apt-get install -y --no-install-recommends chromium")
		return
	}
	assert.FileExists(t, Chromium)
}
