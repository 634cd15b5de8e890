package chaos

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
)

// apply applies faults, failing the test on an error.
func apply(t *testing.T, m *Monkey, faults ...fault.Fault) {
	t.Helper()
	for _, f := range faults {
		require.NoError(t, m.Apply(f))
	}
}

// TestRejoinLiftsOneIsolation checks that rejoining a host lifts its
// isolation only: another isolation, a partition and a cut stay in force.
func TestRejoinLiftsOneIsolation(t *testing.T) {
	m := newMonkey(t, 5)
	apply(t, m,
		fault.Fault{Kind: fault.Partition, Groups: [][]int{{0, 1, 2}, {3, 4}}},
		fault.Fault{Kind: fault.Isolate, Host: 0},
		fault.Fault{Kind: fault.Isolate, Host: 3},
		fault.Fault{Kind: fault.Cut, Host: 0, To: 1},
		fault.Fault{Kind: fault.Rejoin, Host: 0},
	)
	assert.Equal(t, [][]bool{
		{true, false, true, false, false}, // 0 back on its side, but for the cut 0 → 1
		{true, true, true, false, false},
		{true, true, true, false, false},
		{false, false, false, true, false}, // still isolated
		{false, false, false, false, true},
	}, m.Matrix())
	apply(t, m, fault.Fault{Kind: fault.Rejoin, Host: 0}, fault.Fault{Kind: fault.Rejoin, Host: 1}) // neither isolated
	apply(t, m, fault.Fault{Kind: fault.Rejoin, Host: 3})
	assert.Equal(t, [][]bool{
		{true, false, true, false, false},
		{true, true, true, false, false},
		{true, true, true, false, false},
		{false, false, false, true, true}, // back with 4
		{false, false, false, true, true},
	}, m.Matrix())
	assert.Equal(t, "          0s  partition {h0 h1 h2} | {h3 h4}\n"+
		"          0s  isolate h0\n"+
		"          0s  isolate h3\n"+
		"          0s  cut h0 → h1\n"+
		"          0s  rejoin h0\n"+
		"          0s  rejoin h3\n", m.Log().String(), "a rejoin of a host not isolated changes nothing")
	assert.Equal(t, "h3", m.Log()[5].Host)
}

// TestUncutLiftsOneCut checks that uncutting a link lifts that cut only:
// other cuts stay, and a link that an isolation or a partition also cuts
// stays down.
func TestUncutLiftsOneCut(t *testing.T) {
	m := newMonkey(t, 4)
	apply(t, m,
		fault.Fault{Kind: fault.Cut, Host: 1, To: 2},
		fault.Fault{Kind: fault.Cut, Host: 2, To: 3},
		fault.Fault{Kind: fault.Cut, Host: 0, To: 3},
		fault.Fault{Kind: fault.Isolate, Host: 0},
		fault.Fault{Kind: fault.Uncut, Host: 1, To: 2},
		fault.Fault{Kind: fault.Uncut, Host: 0, To: 3}, // 0 is still isolated
	)
	assert.True(t, m.Connected(1, 2))
	assert.False(t, m.Connected(2, 3), "the other cut stays")
	assert.False(t, m.Connected(0, 3), "isolated")
	apply(t, m, fault.Fault{Kind: fault.Rejoin, Host: 0})
	assert.True(t, m.Connected(0, 3), "neither cut nor isolated now")
	assert.False(t, m.Connected(2, 3))

	apply(t, m,
		fault.Fault{Kind: fault.Partition, Groups: [][]int{{0, 1}, {2, 3}}}, // lifts the cut 2 → 3
		fault.Fault{Kind: fault.Cut, Host: 0, To: 2},
		fault.Fault{Kind: fault.Uncut, Host: 0, To: 2},
		fault.Fault{Kind: fault.Uncut, Host: 0, To: 2}, // not cut: changes nothing
	)
	assert.False(t, m.Connected(0, 2), "the partition still cuts it")
	assert.True(t, m.Connected(2, 3))
	assert.Len(t, m.Log(), 10)
	assert.Equal(t, "uncut h0 → h2", m.Log()[9].Text)
}

// TestLogChangesWhatIsInForce checks that a fault is logged when it changes
// the faults in force, even where no link changes (an isolation of a host
// a partition already cuts off), so that a later rejoin has its isolation
// in the log.
func TestLogChangesWhatIsInForce(t *testing.T) {
	m := newMonkey(t, 3)
	apply(t, m,
		fault.Fault{Kind: fault.Partition, Groups: [][]int{{0, 1}}}, // 2 alone
		fault.Fault{Kind: fault.Isolate, Host: 2},
		fault.Fault{Kind: fault.Partition, Groups: [][]int{{1, 0}, {2}}}, // the same partition, lifting the isolation
		fault.Fault{Kind: fault.Partition, Groups: [][]int{{1, 0}}},      // the same again
		fault.Fault{Kind: fault.Heal},
		fault.Fault{Kind: fault.Heal},
	)
	assert.Equal(t, []string{"partition {h0 h1} | {h2}", "isolate h2", "partition {h0 h1} | {h2}", "heal"}, texts(m.Log()))
}

func texts(log fault.Log) []string {
	var out []string
	for _, e := range log {
		out = append(out, e.Text)
	}
	return out
}
