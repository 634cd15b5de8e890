package testbed

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
)

func TestHostsAreNamedServersFirst(t *testing.T) {
	d := cluster.Config{Hosts: 2, Groups: []cluster.Group{{Name: "a", Replicas: 2, Hosts: []int{0, 1}}, {Name: "b", Replicas: 3}}}
	assert.Equal(t, []int{0, 1, 2, 3, 4}, ServerHosts(d))
	assert.Equal(t, []int{5, 6}, ClientHosts(d, 2))
	assert.Empty(t, ClientHosts(d, 0))
	assert.Equal(t, []chaos.Step{{Fault: fault.Fault{Kind: fault.Drift, Host: 5, Rate: 0.9}}, {Fault: fault.Fault{Kind: fault.Drift, Host: 6, Rate: 0.9}}}, Clocks(0.9, 5, 6))
}

// TestIsolationsStayInTheirWindow checks that each isolation strikes one
// of the hosts within the window, lasts at most Away, and is followed by
// its own rejoin unless it runs to the window's end.
func TestIsolationsStayInTheirWindow(t *testing.T) {
	iso := Isolations{Hosts: []int{3, 4}, Away: 300 * time.Millisecond, Gap: 200 * time.Millisecond}
	steps, err := iso.Generate(rand.New(rand.NewPCG(1, 2)), time.Second, 5*time.Second)
	require.NoError(t, err)
	require.Greater(t, len(steps), 10)
	for i, s := range steps {
		assert.GreaterOrEqual(t, s.At, time.Second+iso.Gap/10)
		assert.Less(t, s.At, 5*time.Second)
		assert.Contains(t, iso.Hosts, s.Fault.Host)
		if i%2 == 0 {
			assert.Equal(t, fault.Isolate, s.Fault.Kind)
			continue
		}
		assert.Equal(t, fault.Rejoin, s.Fault.Kind)
		assert.Equal(t, steps[i-1].Fault.Host, s.Fault.Host)
		assert.LessOrEqual(t, s.At-steps[i-1].At, iso.Away)
	}
	again, err := iso.Generate(rand.New(rand.NewPCG(1, 2)), time.Second, 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, steps, again, "drawn from the stream alone")
	none, err := Isolations{}.Generate(nil, 0, time.Second)
	assert.NoError(t, err)
	assert.Empty(t, none)
	_, err = Isolations{Hosts: []int{1}, Away: time.Second, Gap: 5}.Generate(nil, 0, time.Second)
	assert.EqualError(t, err, "isolations of up to 1s, 5ns apart: want a non-negative time away and a gap of at least 10 ns")
	_, err = Isolations{Hosts: []int{1}, Away: -1, Gap: time.Second}.Generate(nil, 0, time.Second)
	assert.ErrorContains(t, err, "isolations of up to -1ns")
	_, err = Isolations{Hosts: []int{1}, Away: 0, Gap: 10}.Generate(rand.New(rand.NewPCG(1, 2)), 0, time.Microsecond)
	assert.NoError(t, err, "the least gap, and no time away")
}

// TestBurstsIsolateClients runs the toy under bursts that only isolate
// its clerks: each heal rejoins them, the run passes and its log shows
// the clerks cut off.
func TestBurstsIsolateClients(t *testing.T) {
	r := toyRun(t, 1, &toy{}, links)
	n, err := Bursts{
		Hosts:   3,
		Clients: Isolations{Hosts: ClientHosts(r.Deploy, 3), Away: 200 * time.Millisecond, Gap: 300 * time.Millisecond},
		Burst:   time.Second, Calm: time.Second, Length: 8 * time.Second,
	}.Generate(rand.New(rand.NewPCG(1, 0)))
	require.NoError(t, err)
	require.NotEmpty(t, n.Heals)
	for _, s := range n.Schedule {
		assert.Contains(t, []fault.Kind{fault.Isolate, fault.Rejoin, fault.Heal, fault.Unreliable, fault.Reordering, fault.LongDelays}, s.Fault.Kind, "no server faults: %v", s.Fault)
	}
	r.Nemesis = n
	rec, err := r.Execute()
	require.NoError(t, err)
	require.True(t, rec.OK(), rec.Problem)
	assert.Empty(t, rec.Stalls)
	assert.Contains(t, rec.FaultLog.String(), "isolate clerk")
}

// TestLeaderKills runs the toy with its leader killed again and again:
// the log shows kills and restarts, and bad input is refused.
func TestLeaderKills(t *testing.T) {
	r := toyRun(t, 1, &toy{}, links)
	r.Nemesis = Nemesis{Reactive: LeaderKills{Gap: time.Second, Down: 300 * time.Millisecond}.Start}
	rec, err := r.Execute()
	require.NoError(t, err)
	log := rec.FaultLog.String()
	assert.GreaterOrEqual(t, strings.Count(log, "kill server"), 4, log)
	assert.GreaterOrEqual(t, strings.Count(log, "restart server"), 4, log)
	for _, c := range []struct {
		lk   LeaderKills
		want string
	}{
		{LeaderKills{Gap: 2, Down: time.Second}, "leader kills every 2ns, down up to 1s: want a gap of at least 3 ns"},
		{LeaderKills{Gap: time.Second, Down: -1}, "leader kills every 1s, down up to -1ns"},
		{LeaderKills{Group: 1, Gap: time.Second}, "leader kills in group 1: the cluster has 1"},
	} {
		r.Nemesis = Nemesis{Reactive: c.lk.Start}
		_, err := r.Execute()
		assert.ErrorContains(t, err, c.want)
	}
}

// TestBurstsLastAtMost checks that a last burst that would run to the
// end is cut at LastAtMost and healed, with no progress declared after it.
func TestBurstsLastAtMost(t *testing.T) {
	b := Bursts{Hosts: 3, Faults: chaos.NemesisConfig{Interval: 50 * time.Millisecond, Weights: chaos.DefaultWeights()},
		Burst: time.Second, Calm: 10 * time.Second, Length: 8 * time.Second}
	whole, err := b.Generate(rand.New(rand.NewPCG(1, 0)))
	require.NoError(t, err)
	require.Empty(t, whole.Heals, "one burst, to the end")
	assert.Greater(t, whole.Schedule[len(whole.Schedule)-1].At, 2*time.Second)
	b.LastAtMost = 2 * time.Second
	cut, err := b.Generate(rand.New(rand.NewPCG(1, 0)))
	require.NoError(t, err)
	assert.Empty(t, cut.Heals, "no room for progress after the heal")
	last := cut.Schedule[len(cut.Schedule)-1]
	assert.Equal(t, 2*time.Second, last.At, "healed at LastAtMost")
	heal := slices.IndexFunc(cut.Schedule, func(s chaos.Step) bool { return s.Fault.Kind == fault.Heal && s.At == 2*time.Second })
	assert.GreaterOrEqual(t, heal, 0, "a heal at the cut:\n%v", cut.Schedule)
	for _, s := range cut.Schedule {
		assert.LessOrEqual(t, s.At, 2*time.Second)
	}
}

// TestIsolationsRest checks that a client that rejoined is not isolated
// again within Rest.
func TestIsolationsRest(t *testing.T) {
	iso := Isolations{Hosts: []int{3, 4}, Away: 300 * time.Millisecond, Gap: 100 * time.Millisecond, Rest: time.Second}
	steps, err := iso.Generate(rand.New(rand.NewPCG(1, 2)), 0, 20*time.Second)
	require.NoError(t, err)
	require.Greater(t, len(steps), 20)
	back := map[int]time.Duration{}
	for _, s := range steps {
		switch s.Fault.Kind {
		case fault.Rejoin:
			back[s.Fault.Host] = s.At
		case fault.Isolate:
			if last, ok := back[s.Fault.Host]; ok {
				assert.GreaterOrEqual(t, s.At-last, iso.Rest, "host %d isolated at %v, back at %v", s.Fault.Host, s.At, last)
			}
		}
	}
}

// TestMergeAndDraw checks the schedules' two small helpers: merge keeps
// time order (a's step first at a tie), and draw stays in [lo, hi],
// reaching both ends.
func TestMergeAndDraw(t *testing.T) {
	step := func(at time.Duration, host int) chaos.Step {
		return chaos.Step{At: at, Fault: fault.Fault{Kind: fault.Isolate, Host: host}}
	}
	got := merge([]chaos.Step{step(1, 0), step(3, 0)}, []chaos.Step{step(2, 1), step(3, 1), step(0, 1)})
	assert.Equal(t, []chaos.Step{step(0, 1), step(1, 0), step(2, 1), step(3, 0), step(3, 1)}, got)
	rng := rand.New(rand.NewPCG(1, 1))
	seen := map[time.Duration]bool{}
	for range 200 {
		d := draw(rng, 5, 7)
		require.True(t, d >= 5 && d <= 7, "%v", d)
		seen[d] = true
	}
	assert.Len(t, seen, 3)
}
