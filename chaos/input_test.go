package chaos

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// TestNewRefusesBadHosts checks that New names what is wrong with its
// network or hosts, at the call.
func TestNewRefusesBadHosts(t *testing.T) {
	w := sim.NewWorld(1)
	net := labrpc.MakeNetwork(w)
	hosts, err := w.NewHosts(3, "h")
	require.NoError(t, err)
	elsewhere := sim.NewWorld(2).NewHost("x")
	for _, c := range []struct {
		net   *labrpc.Network
		hosts []*sim.Host
		want  string
	}{
		{nil, hosts, "chaos: New: a nil network"},
		{net, []*sim.Host{hosts[0], nil, hosts[2]}, "chaos: New: host 1 is nil"},
		{net, []*sim.Host{hosts[0], hosts[1], hosts[0]}, "chaos: New: hosts 0 and 2 are both h0"},
		{net, []*sim.Host{hosts[0], elsewhere}, "chaos: New: host 1 (x) is of another world than the network"},
	} {
		m, err := New(c.net, c.hosts, Hooks{})
		assert.EqualError(t, err, c.want)
		assert.Nil(t, m)
	}
}

// TestConnectedPanicsOnHostsNotThere checks that Connected names the host
// it does not have, rather than failing with an index out of range.
func TestConnectedPanicsOnHostsNotThere(t *testing.T) {
	m := newMonkey(t, 5)
	assert.PanicsWithValue(t, "chaos: Connected(9, 0): host 9 is not in 0..4", func() { m.Connected(9, 0) })
	assert.PanicsWithValue(t, "chaos: Connected(0, -1): host -1 is not in 0..4", func() { m.Connected(0, -1) })
	assert.PanicsWithValue(t, "chaos: Connected(5, 5): host 5 is not in 0..4", func() { m.Connected(5, 5) })
	assert.True(t, m.Connected(4, 0))
}

// TestScenariosPanicOnBadArguments checks that each scenario names itself
// and the bad value, at the call rather than when the fault is applied.
func TestScenariosPanicOnBadArguments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for want, call := range map[string]func(){
		"chaos: IsolateLeader: leader -1 is negative":                                func() { IsolateLeader(-1) },
		"chaos: SplitMajority: a nil rng (pass the world's, World.Rand)":             func() { SplitMajority(5, 0, nil) },
		"chaos: SplitMajority: leader 5 is not in 0..4":                              func() { SplitMajority(5, 5, rng) },
		"chaos: SplitMajority: leader -1 is not in 0..4":                             func() { SplitMajority(5, -1, rng) },
		"chaos: SplitMajority: -3 hosts cannot split into a majority and a minority": func() { SplitMajority(-3, 0, rng) },
		"chaos: SplitAllMinority: a nil rng (pass the world's, World.Rand)":          func() { SplitAllMinority(5, nil) },
		"chaos: SplitAllMinority: -1 hosts cannot split into minorities":             func() { SplitAllMinority(-1, rng) },
		"chaos: IsolateAll: -2 hosts":                                                func() { IsolateAll(-2) },
	} {
		assert.PanicsWithValue(t, want, call)
	}
}

// TestFaultsRefusedAtTheCall checks that every malformed fault is an error
// from Apply and from Schedule, and that none is applied.
func TestFaultsRefusedAtTheCall(t *testing.T) {
	m := newMonkey(t, 3)
	for _, c := range []struct {
		f    fault.Fault
		want string
	}{
		{fault.Fault{Kind: fault.Cut, Host: 2, To: 2}, "chaos: cut: host 2 → host 2 is no link: a host always reaches itself"},
		{fault.Fault{Kind: fault.Uncut, Host: 1, To: 1}, "chaos: uncut: host 1 → host 1 is no link: a host always reaches itself"},
		{fault.Fault{Kind: fault.Cut, Host: -1, To: 1}, "chaos: cut: host -1 is not in 0..2"},
		{fault.Fault{Kind: fault.Uncut, Host: 0, To: 3}, "chaos: uncut: host 3 is not in 0..2"},
		{fault.Fault{Kind: fault.Isolate, Host: 3}, "chaos: isolate: host 3 is not in 0..2"},
		{fault.Fault{Kind: fault.Rejoin, Host: -2}, "chaos: rejoin: host -2 is not in 0..2"},
		{fault.Fault{Kind: fault.Restart, Host: 3}, "chaos: restart: host 3 is not in 0..2"},
		{fault.Fault{Kind: fault.Drift, Host: 4, Rate: 1}, "chaos: drift: host 4 is not in 0..2"},
		{fault.Fault{Kind: fault.Partition, Groups: [][]int{{0}, {-1}}}, "chaos: partition: host -1 is not in 0..2"},
		{fault.Fault{Kind: fault.Duplicate, Rate: 1.5}, "chaos: duplicate: probability 1.5 is not in [0,1]"},
		{fault.Fault{Kind: fault.Duplicate, Rate: -0.1}, "chaos: duplicate: probability -0.1 is not in [0,1]"},
		{fault.Fault{Kind: fault.Duplicate, Rate: math.NaN()}, "chaos: duplicate: probability NaN is not in [0,1]"},
		{fault.Fault{Kind: fault.DelayRule, Name: "slow"}, `chaos: delay rule: no rule is named "slow" (Monkey.DefineDelayRule names one)`},
		{fault.Fault{Kind: fault.Note}, "chaos: a note is not a fault to apply: a test writes it into its own log, beside the monkey's"},
		{fault.Fault{Kind: fault.Kind(16)}, "chaos: unknown fault kind 16"},
		{fault.Fault{Kind: fault.Kind(-1)}, "chaos: unknown fault kind -1"},
	} {
		assert.EqualError(t, m.Apply(c.f), c.want)
		assert.EqualError(t, m.Schedule([]Step{{At: time.Second, Fault: fault.Fault{Kind: fault.Heal}}, {At: 0, Fault: c.f}}),
			"chaos: script step 1: "+c.want)
	}
	m.w.Run(time.Hour)
	assert.EqualError(t, m.Schedule([]Step{{At: math.MaxInt64, Fault: fault.Fault{Kind: fault.Heal}}}),
		"chaos: script step 0 (heal) at 2562047h47m16.854775807s from 1h0m0s is past the end of virtual time")
	assert.Empty(t, m.Log(), "no step of a refused script is scheduled")
	assert.Equal(t, [][]bool{{true, true, true}, {true, true, true}, {true, true, true}}, m.Matrix())
	assert.True(t, m.net.IsReliable())
	assert.Zero(t, m.net.Params().Duplicate)
}

// TestNemesisRefusesBadConfigs checks the bounds on a nemesis's interval,
// weights and dead hosts.
func TestNemesisRefusesBadConfigs(t *testing.T) {
	m := newMonkey(t, 3)
	for _, c := range []struct {
		cfg  NemesisConfig
		want string
	}{
		{NemesisConfig{Interval: time.Nanosecond, Weights: DefaultWeights()},
			"chaos: nemesis interval 1ns is below the minimum, 1ms (MinInterval): faults faster than messages cross the network only flood the fault log"},
		{NemesisConfig{Interval: MinInterval - 1, Weights: DefaultWeights()},
			"chaos: nemesis interval 999.999µs is below the minimum, 1ms (MinInterval): faults faster than messages cross the network only flood the fault log"},
		{NemesisConfig{Interval: -time.Second, Weights: DefaultWeights()},
			"chaos: nemesis interval -1s is below the minimum, 1ms (MinInterval): faults faster than messages cross the network only flood the fault log"},
		{NemesisConfig{Interval: math.MaxInt64, Weights: DefaultWeights()},
			"chaos: nemesis interval 2562047h47m16.854775807s is so long that gaps of 3/2 of it overflow virtual time"},
		{NemesisConfig{Interval: time.Second, Weights: Weights{Rejoin: math.Inf(1)}},
			"chaos: nemesis weight Rejoin = +Inf is not a finite non-negative number"},
		{NemesisConfig{Interval: time.Second, Weights: Weights{LongDelays: math.NaN()}},
			"chaos: nemesis weight LongDelays = NaN is not a finite non-negative number"},
		{NemesisConfig{Interval: time.Second, Weights: Weights{Unreliable: -1}},
			"chaos: nemesis weight Unreliable = -1 is not a finite non-negative number"},
		{NemesisConfig{Interval: time.Second, Weights: Weights{Kill: math.MaxFloat64, Heal: math.MaxFloat64}},
			"chaos: nemesis weights add up to more than the largest float64"},
		{NemesisConfig{Interval: time.Second, Weights: DefaultWeights(), MaxDead: -1},
			"chaos: nemesis MaxDead -1 is not in 0..3"},
	} {
		n, err := m.StartNemesis(c.cfg)
		assert.EqualError(t, err, c.want)
		assert.Nil(t, n)
	}
	_, err := m.StartNemesis(NemesisConfig{Interval: MinInterval, Weights: DefaultWeights()})
	assert.NoError(t, err, "MinInterval itself is allowed")
	assert.Equal(t, 1, m.w.Pending(), "only the accepted nemesis is armed")
}
