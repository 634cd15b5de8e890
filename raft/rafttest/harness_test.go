package rafttest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/rafttest"
)

// fatals is a simtest.T that keeps the failures it is told of.
type fatals struct{ got []string }

func (f *fatals) Helper()                         {}
func (f *fatals) Logf(format string, args ...any) {}
func (f *fatals) Errorf(format string, args ...any) {
	f.got = append(f.got, fmt.Sprintf(format, args...))
}
func (f *fatals) Fatalf(format string, args ...any) {
	f.got = append(f.got, fmt.Sprintf(format, args...))
}
func (f *fatals) FailNow() {}

func TestBridgeCutsTheOthersApartButNotFromTheBridge(t *testing.T) {
	h := rafttest.New(t, 1, 3, false, false, raft.Maker(raft.LabConfig()))
	up := func(a, b int) bool { return h.Net().LinkUp(h.Host(a), h.Host(b)) }
	h.Bridge(0)
	assert.False(t, up(1, 2), "the two sides are cut apart")
	assert.False(t, up(2, 1))
	for _, s := range []int{1, 2} {
		assert.True(t, up(0, s), "the bridge talks to server %d", s)
		assert.True(t, up(s, 0), "server %d talks to the bridge", s)
		assert.True(t, h.Connected(s))
	}
	assert.Contains(t, h.Cluster().Log().String(), "bridged by")

	h.Disconnect(1) // an isolation replaces the bridge
	assert.True(t, up(2, 0))
	assert.False(t, up(1, 0))
	h.Connect(1)
	assert.True(t, up(1, 2), "reconnecting every server heals the network")

	f := &fatals{}
	bad := rafttest.New(f, 1, 3, false, false, raft.Maker(raft.LabConfig()))
	bad.Bridge(3)
	require.Len(t, f.got, 1)
	assert.Contains(t, f.got[0], "no server 3 to bridge")
}
