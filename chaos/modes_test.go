package chaos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim/simtest"
)

// TestModesAreFaults checks that the network's modes switch through the
// monkey, each change in the log as a person says it, and a switch that
// changes nothing not logged.
func TestModesAreFaults(t *testing.T) {
	m := newMonkey(t, 2)
	net := m.net
	apply(t, m,
		fault.Fault{Kind: fault.Unreliable, On: true},
		fault.Fault{Kind: fault.Unreliable, On: true},
		fault.Fault{Kind: fault.Reordering, On: true},
		fault.Fault{Kind: fault.LongDelays, On: true},
		fault.Fault{Kind: fault.Duplicate, Rate: 0.05},
		fault.Fault{Kind: fault.Duplicate, Rate: 0.05},
	)
	assert.False(t, net.IsReliable())
	assert.True(t, net.IsLongReordering())
	assert.True(t, net.IsLongDelays())
	assert.Equal(t, 0.05, net.Params().Duplicate)
	apply(t, m,
		fault.Fault{Kind: fault.Heal}, // leaves the modes alone
		fault.Fault{Kind: fault.Unreliable},
		fault.Fault{Kind: fault.Reordering},
		fault.Fault{Kind: fault.Reordering},
		fault.Fault{Kind: fault.LongDelays},
		fault.Fault{Kind: fault.Duplicate},
	)
	assert.True(t, net.IsReliable())
	assert.False(t, net.IsLongReordering())
	assert.False(t, net.IsLongDelays())
	assert.Zero(t, net.Params().Duplicate)
	assert.Equal(t, []string{"unreliable on", "reordering on", "long delays on", "duplicate 5% of requests",
		"unreliable off", "reordering off", "long delays off", "duplication off"}, texts(m.Log()))
	assert.Empty(t, m.Log()[0].Host, "a mode has no host")
}

// TestDelayRulesAreFaults checks that a delay rule put in force through the
// monkey delays what it says, is logged by name, and can be scheduled and
// switched off.
func TestDelayRulesAreFaults(t *testing.T) {
	c := newCluster(t, 1, 2)
	late := func(msg labrpc.Message) time.Duration {
		if msg.To == c.hosts[1] && !msg.IsReply {
			return 100 * time.Millisecond
		}
		return 0
	}
	require.NoError(t, c.m.SetDelayRule("pings to h1 late", late))
	require.NoError(t, c.m.DefineDelayRule("none", func(labrpc.Message) time.Duration { return 0 }))
	require.NoError(t, c.m.Schedule([]Step{
		{At: time.Second, Fault: fault.Fault{Kind: fault.DelayRule, Name: "none"}},
		{At: 2 * time.Second, Fault: fault.Fault{Kind: fault.DelayRule, Name: "pings to h1 late"}},
		{At: 3 * time.Second, Fault: fault.Fault{Kind: fault.DelayRule}},
	}))
	var pong Pong
	sent := map[int]time.Duration{}
	for _, at := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 2500 * time.Millisecond, 3500 * time.Millisecond} {
		c.w.After(at, func() {
			sent[len(sent)] = c.w.Now()
			c.ends[0][1].Call("Counter.Ping", &Ping{From: 0}, &pong, func(bool) {})
		})
	}
	c.w.Run(4 * time.Second)
	require.Len(t, c.nodes[1].receiveAt, 4)
	var took []time.Duration
	for i, at := range c.nodes[1].receiveAt {
		took = append(took, (at - sent[i]).Round(time.Millisecond))
	}
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 0, 100 * time.Millisecond, 0}, took)
	assert.Equal(t, "          0s  delay rule: pings to h1 late\n"+
		"          1s  delay rule: none\n"+
		"          2s  delay rule: pings to h1 late\n"+
		"          3s  delay rule off\n", c.m.Log().String())

	assert.EqualError(t, c.m.DefineDelayRule("", late), "chaos: DefineDelayRule: a rule needs a name")
	assert.EqualError(t, c.m.DefineDelayRule("nil", nil), `chaos: DefineDelayRule: rule "nil" is nil`)
	assert.EqualError(t, c.m.SetDelayRule("none", late), `chaos: DefineDelayRule: a rule named "none" is defined already`)
	assert.Len(t, c.m.Log(), 4, "a refused rule is not put in force")
}

// TestDuplicateDeliversTwice checks that duplication switched on through the
// monkey reaches the network: every ping runs its handler twice.
func TestDuplicateDeliversTwice(t *testing.T) {
	c := newCluster(t, 1, 2)
	apply(t, c.m, fault.Fault{Kind: fault.Duplicate, Rate: 1})
	var pong Pong
	for range 10 {
		c.ends[0][1].Call("Counter.Ping", &Ping{From: 0}, &pong, func(bool) {})
	}
	c.w.Run(time.Second)
	assert.Equal(t, 20, c.nodes[1].inMemory)
}

// modesRun runs a nemesis that only isolates, cuts, undoes them and switches
// the modes, for 20 virtual seconds of pings.
func modesRun(t *testing.T, seed int64) *cluster {
	c := newCluster(t, seed, 5)
	_, err := c.m.StartNemesis(NemesisConfig{Interval: 100 * time.Millisecond, Weights: Weights{
		Isolate: 1, Cut: 2, Rejoin: 2, Uncut: 2, Unreliable: 1, Reordering: 1, LongDelays: 1}})
	require.NoError(t, err)
	c.ping(20*time.Second, 50*time.Millisecond, map[[2]int]int{})
	c.w.Run(20 * time.Second)
	return c
}

// TestNemesisUndoesAndSwitchesModes checks that a nemesis weighted so
// chooses each of those kinds, and that its log says all it did: the same
// faults applied to a fresh monkey leave the same links and modes.
func TestNemesisUndoesAndSwitchesModes(t *testing.T) {
	simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
		c := modesRun(t, seed)
		kinds := map[fault.Kind]int{}
		for _, e := range c.m.Log() {
			kinds[e.Fault.Kind]++
		}
		for _, k := range []fault.Kind{fault.Isolate, fault.Cut, fault.Rejoin, fault.Uncut, fault.Unreliable, fault.Reordering, fault.LongDelays} {
			assert.NotZero(t, kinds[k], "the nemesis never chose %v", k)
		}
		replay := newMonkey(t, 5)
		for _, e := range c.m.Log() {
			apply(t, replay, e.Fault)
		}
		assert.Equal(t, c.m.Matrix(), replay.Matrix())
		assert.Equal(t, c.net.IsReliable(), replay.net.IsReliable())
		assert.Equal(t, c.net.IsLongReordering(), replay.net.IsLongReordering())
		assert.Equal(t, c.net.IsLongDelays(), replay.net.IsLongDelays())
		assert.Equal(t, len(c.m.Log()), len(replay.Log()), "each logged fault changed something")
		return simtest.Result{World: c.w, Hosts: 5, RPCs: c.net.GetTotalCount(), Bytes: c.net.GetTotalBytes()}
	})
}
