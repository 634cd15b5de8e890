package testbed

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
)

// toyRun is a run of the toy store on three hosts (replica 0 serves),
// its clients under bursts of the given faults, healed every burst.
func toyRun(t *testing.T, seed int64, tk *toy, weights chaos.Weights) Run {
	kv := toyKV(tk, 3)
	n, err := Bursts{
		Hosts: 3, Faults: chaos.NemesisConfig{Interval: 100 * time.Millisecond, Weights: weights, MaxDead: 1},
		Burst: time.Second, Calm: time.Second, Length: 8 * time.Second,
	}.Generate(rand.New(rand.NewPCG(uint64(seed), 0)))
	require.NoError(t, err)
	return Run{
		Name: "toy", Seed: seed,
		Deploy:   cluster.Config{Groups: []cluster.Group{{Name: "toy", Replicas: 3, Factory: toyFactory}}},
		Workload: kv, Nemesis: n,
		Length: 8 * time.Second, Settle: 10 * time.Second, Progress: time.Second,
		Checks: []Check{kv.Linearizable(time.Minute)},
	}
}

// links are faults that lose no data of the toy's.
var links = chaos.Weights{Partition: 1, Isolate: 1, Cut: 1, Heal: 1}

// TestRunPasses runs the toy under link faults: it stays linearizable,
// progress comes after every heal, and the run replays to the same trace.
func TestRunPasses(t *testing.T) {
	rec, err := toyRun(t, 1, &toy{}, links).Execute()
	require.NoError(t, err)
	require.True(t, rec.OK(), rec.Problem)
	assert.Empty(t, rec.Stalls)
	assert.Greater(t, rec.Ops, 100)
	heals := 0
	for _, e := range rec.FaultLog {
		if e.Fault.Kind == fault.Heal {
			heals++
		}
	}
	assert.GreaterOrEqual(t, heals, 3, "a heal after every burst:\n%v", rec.FaultLog)
	again, err := toyRun(t, 1, &toy{}, links).Execute()
	require.NoError(t, err)
	assert.Equal(t, rec.World.TraceHash(), again.World.TraceHash())
	assert.Equal(t, rec.FaultLog.String(), again.FaultLog.String())
}

// TestKillsAreCaught runs the toy under kills, which wipe its store: the
// linearizability check must say no.
func TestKillsAreCaught(t *testing.T) {
	weights := links
	weights.Kill, weights.Restart = 4, 4
	found := false
	for seed := int64(1); seed <= 5 && !found; seed++ {
		rec, err := toyRun(t, seed, &toy{}, weights).Execute()
		require.NoError(t, err)
		found = !rec.OK()
		if found {
			assert.Contains(t, rec.Problem, "not linearizable")
		}
	}
	assert.True(t, found, "no seed of 5 caught a store that forgets")
}

// TestStallsAreNamed checks both progress checks: clerks that stop
// sending after a heal, and a fresh clerk that never sends once the run
// has settled.
func TestStallsAreNamed(t *testing.T) {
	tk := &toy{}
	r := toyRun(t, 1, tk, links)
	require.GreaterOrEqual(t, len(r.Nemesis.Heals), 2)
	heal := r.Nemesis.Heals[1]
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		e.World.After(heal, func() { tk.hang = true })
		return func() {}, nil
	}
	rec, err := r.Execute()
	require.NoError(t, err)
	require.Len(t, rec.Stalls, len(r.Nemesis.Heals)-1, "every heal from the second on")
	assert.Equal(t, heal, rec.Stalls[0].Heal)
	assert.Equal(t, "stall: no operation begun after the heal at "+heal.String()+" completed within 1s", rec.Problem)

	tk = &toy{}
	r = toyRun(t, 1, tk, links)
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		return func() { tk.deaf = true }, nil
	}
	rec, err = r.Execute()
	require.NoError(t, err)
	require.Len(t, rec.Stalls, 1)
	assert.True(t, rec.Stalls[0].Fresh)
	assert.Contains(t, rec.Problem, "stall: a fresh client's operation did not complete within 1s of settling")
}

// TestRunRefusesBadInput checks that a run that cannot be carried out as
// given is refused, saying why.
func TestRunRefusesBadInput(t *testing.T) {
	good := func() Run { return toyRun(t, 1, &toy{}, links) }
	for _, c := range []struct {
		change func(*Run)
		want   string
	}{
		{func(r *Run) { r.Workload = nil }, "no workload"},
		{func(r *Run) { r.Length = -time.Second }, "negative length -1s"},
		{func(r *Run) { r.Progress = 0 }, "declares heals but Progress is 0"},
		{func(r *Run) { r.Nemesis.Heals = append(r.Nemesis.Heals, 7500*time.Millisecond) }, "would not be seen within the run's 8s"},
		{func(r *Run) {
			r.Nemesis.Schedule = append(r.Nemesis.Schedule, chaos.Step{At: r.Nemesis.Heals[0] + time.Millisecond, Fault: fault.Fault{Kind: fault.Kill}})
		}, "strikes within the 1s progress is given"},
		{func(r *Run) { r.Deploy.Groups[0].Replicas = 0 }, "deploying"},
	} {
		r := good()
		c.change(&r)
		_, err := r.Execute()
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
	}
	_, err := Bursts{Hosts: 3, Burst: 0, Calm: time.Second}.Generate(rand.New(rand.NewPCG(1, 1)))
	assert.ErrorContains(t, err, "bursts of 0s")
	rec, err := (&Run{Name: "x", Workload: &KV{}, Deploy: good().Deploy}).Execute()
	require.NoError(t, err)
	assert.Contains(t, rec.Problem, "kv workload of 0 clients and 0 readers")
}

// TestStormIsAFinding checks that a run past its event budget ends as a
// failing record that says so, with its fault log and summary.
func TestStormIsAFinding(t *testing.T) {
	r := toyRun(t, 1, &toy{}, links)
	r.MaxEvents = 1000
	rec, err := r.Execute()
	require.NoError(t, err)
	assert.Regexp(t, `^storm: more than 1000 events by virtual time \S+ \(\d+ a virtual second\)$`, rec.Problem)
	assert.Equal(t, uint64(1001), rec.Summary.Events, "the event past the budget")
	assert.Less(t, rec.Summary.Now, r.Length)
}

// TestProgressCountsOperationsBegunAfterTheHeal checks the count behind
// the progress checks: an operation begun before the mark does not count,
// one begun at it or after does, once each.
func TestProgressCountsOperationsBegunAfterTheHeal(t *testing.T) {
	e := &Env{mark: 10 * time.Second}
	e.Completed(10*time.Second - 1)
	assert.Zero(t, e.since)
	e.Completed(10 * time.Second)
	e.Completed(11 * time.Second)
	assert.Equal(t, 2, e.since)
}

// slowStart is a workload whose setup runs the world a while before its
// clients start, as opening a bank's accounts does.
type slowStart struct {
	Workload
	setup time.Duration
}

func (s slowStart) Start(e *Env) (Load, error) {
	e.World.Run(s.setup)
	return s.Workload.Start(e)
}

// TestHealsAreOnTheClientsClock checks that a nemesis's heals count from
// when the clients have started, after any setup, and that with no
// progress bound a run asks nothing of a fresh client.
func TestHealsAreOnTheClientsClock(t *testing.T) {
	tk := &toy{}
	r := toyRun(t, 1, tk, links)
	r.Workload = slowStart{r.Workload, 700 * time.Millisecond}
	heal := r.Nemesis.Heals[1]
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		e.World.After(heal, func() { tk.hang = true })
		return func() { tk.hang = false }, nil
	}
	rec, err := r.Execute()
	require.NoError(t, err)
	require.NotEmpty(t, rec.Stalls)
	assert.Equal(t, 700*time.Millisecond+heal, rec.Stalls[0].Heal)

	tk = &toy{}
	r = toyRun(t, 1, tk, links)
	r.Nemesis, r.Progress = Nemesis{}, 0
	r.Nemesis.Reactive = func(e *Env) (func(), error) { return func() { tk.deaf = true }, nil }
	rec, err = r.Execute()
	require.NoError(t, err)
	assert.True(t, rec.OK(), "no probe without a progress bound: %s", rec.Problem)
}

// TestHealsAtTheBoundsAreAccepted checks the edges of a run's checks on
// its heals: a heal whose progress window ends with the run, and steps at
// the heal itself or at the window's end, are fine; a heal before the
// start is not.
func TestHealsAtTheBoundsAreAccepted(t *testing.T) {
	r := toyRun(t, 1, &toy{}, links)
	last := r.Length - r.Progress
	r.Nemesis = Nemesis{Heals: []time.Duration{0, last}, Schedule: []chaos.Step{
		{At: last, Fault: fault.Fault{Kind: fault.Heal}},
		{At: r.Length, Fault: fault.Fault{Kind: fault.Isolate, Host: 1}},
	}}
	require.NoError(t, r.check())
	r.Nemesis.Heals = append(r.Nemesis.Heals, -time.Millisecond)
	assert.ErrorContains(t, r.check(), "heal 2 at -1ms")
}

// TestKVReadersAlone runs a workload of readers only, and one of a
// client and a reader.
func TestKVReadersAlone(t *testing.T) {
	for _, clients := range []int{0, 1} {
		r := toyRun(t, 1, &toy{}, links)
		kv := toyKV(&toy{}, clients)
		kv.Readers = 2 - clients
		r.Workload, r.Checks = kv, []Check{kv.Linearizable(time.Minute)}
		rec, err := r.Execute()
		require.NoError(t, err)
		require.True(t, rec.OK(), rec.Problem)
		assert.Greater(t, rec.Ops, 50)
	}
}
