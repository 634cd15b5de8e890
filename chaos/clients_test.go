package chaos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim"
)

// withClient returns a monkey on three servers and one client, and the
// client's index.
func withClient(t *testing.T) (*Monkey, int) {
	m := newMonkey(t, 3)
	c, err := m.AddClient(m.w.NewHost("clerk"))
	require.NoError(t, err)
	require.Equal(t, 3, c, "a client follows the servers")
	assert.Equal(t, 3, m.Hosts())
	assert.Equal(t, 1, m.Clients())
	return m, c
}

// reaches reports, for each server, whether the client reaches it and it
// the client.
func reaches(m *Monkey, client int) (out, in []bool) {
	for s := range m.Hosts() {
		out = append(out, m.Connected(client, s))
		in = append(in, m.Connected(s, client))
	}
	return out, in
}

// TestIsolateClient checks that isolating a client cuts it off from every
// server both ways and no server from another, that the log names it, and
// that a rejoin lets it back.
func TestIsolateClient(t *testing.T) {
	m, c := withClient(t)
	apply(t, m, fault.Fault{Kind: fault.Isolate, Host: c})
	out, in := reaches(m, c)
	assert.Equal(t, []bool{false, false, false}, out)
	assert.Equal(t, []bool{false, false, false}, in)
	assert.Equal(t, [][]bool{{true, true, true}, {true, true, true}, {true, true, true}}, m.Matrix(), "the servers still reach each other")
	apply(t, m, fault.Fault{Kind: fault.Rejoin, Host: c})
	out, in = reaches(m, c)
	assert.Equal(t, []bool{true, true, true}, out)
	assert.Equal(t, []bool{true, true, true}, in)
	assert.Equal(t, []string{"isolate clerk", "rejoin clerk"}, texts(m.Log()))
	assert.Equal(t, "clerk", m.Log()[0].Host)
}

// TestServerFaultsLeaveClientsAlone checks that a partition, a bridge and
// an isolated server leave a client's links up: a client is on no side.
func TestServerFaultsLeaveClientsAlone(t *testing.T) {
	m, c := withClient(t)
	apply(t, m,
		fault.Fault{Kind: fault.Partition, Groups: [][]int{{0, 1}, {2}}},
		fault.Fault{Kind: fault.Bridge, Host: 0, Groups: [][]int{{1}, {2}}},
		fault.Fault{Kind: fault.Isolate, Host: 1},
	)
	out, in := reaches(m, c)
	assert.Equal(t, []bool{true, true, true}, out)
	assert.Equal(t, []bool{true, true, true}, in)
	assert.False(t, m.Connected(1, 0))
	assert.Equal(t, []string{"partition {h0 h1} | {h2}", "partition {h1} | {h2}, bridged by h0", "isolate h1"}, texts(m.Log()),
		"the client is on no side")
}

// TestClientLinks checks a one-way cut between a client and a server, a
// partition lifting a client's isolation as it lifts every link fault,
// and a client's clock set through a drift.
func TestClientLinks(t *testing.T) {
	m, c := withClient(t)
	apply(t, m, fault.Fault{Kind: fault.Cut, Host: c, To: 2})
	out, in := reaches(m, c)
	assert.Equal(t, []bool{true, true, false}, out)
	assert.Equal(t, []bool{true, true, true}, in, "one way only")
	apply(t, m, fault.Fault{Kind: fault.Isolate, Host: c}, fault.Fault{Kind: fault.Partition, Groups: [][]int{{0}, {1, 2}}})
	out, _ = reaches(m, c)
	assert.Equal(t, []bool{true, true, true}, out, "a partition replaces the link faults in force")
	apply(t, m, fault.Fault{Kind: fault.Drift, Host: c, Rate: 0.95})
	assert.Equal(t, "drift clerk x0.95", m.Log()[3].Text)
	start := m.w.Now()
	var read time.Duration
	m.hosts[c].After(time.Second, func() { read = m.w.Now() - start })
	m.w.Run(2 * time.Second)
	assert.InDelta(t, float64(time.Second)/0.95, float64(read), float64(time.Millisecond), "a second of the client's clock")
}

// TestClientFaultsRefused checks that faults only servers take are refused
// for a client, naming it, and that AddClient refuses bad hosts.
func TestClientFaultsRefused(t *testing.T) {
	m, c := withClient(t)
	for _, f := range []fault.Fault{
		{Kind: fault.Kill, Host: c},
		{Kind: fault.Restart, Host: c},
		{Kind: fault.Partition, Groups: [][]int{{0, c}, {1, 2}}},
		{Kind: fault.Bridge, Host: c, Groups: [][]int{{0}, {1, 2}}},
	} {
		assert.EqualError(t, m.Apply(f), "chaos: "+f.Kind.String()+": host 3 is client clerk: only servers (0..2) are partitioned, killed and restarted")
	}
	assert.EqualError(t, m.Apply(fault.Fault{Kind: fault.Isolate, Host: 4}), "chaos: isolate: host 4 is not in 0..3")
	assert.Empty(t, m.Log())

	_, err := m.AddClient(nil)
	assert.EqualError(t, err, "chaos: AddClient: a nil host")
	_, err = m.AddClient(m.hosts[1])
	assert.EqualError(t, err, "chaos: AddClient: h1 is already host 1")
	_, err = m.AddClient(m.hosts[c])
	assert.EqualError(t, err, "chaos: AddClient: clerk is already host 3")
	_, err = m.AddClient(sim.NewWorld(1).NewHost("stranger"))
	assert.EqualError(t, err, "chaos: AddClient: stranger is of another world than the monkey")
	assert.Equal(t, 1, m.Clients())
}

// TestNemesisLeavesClientsAlone runs a nemesis with a client added: it
// names servers only, and the client, never isolated, always reaches
// every server.
func TestNemesisLeavesClientsAlone(t *testing.T) {
	m, c := withClient(t)
	_, err := m.StartNemesis(NemesisConfig{Interval: 50 * time.Millisecond, Weights: DefaultWeights()})
	require.NoError(t, err)
	for range 100 {
		m.w.Run(50 * time.Millisecond)
		out, in := reaches(m, c)
		require.Equal(t, []bool{true, true, true}, out)
		require.Equal(t, []bool{true, true, true}, in)
	}
	require.Greater(t, len(m.Log()), 30)
	for _, e := range m.Log() {
		assert.NotEqual(t, "clerk", e.Host, e.Text)
		assert.Less(t, e.Fault.Host, c, e.Text)
		assert.Less(t, e.Fault.To, c, e.Text)
	}
}
