package testbed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailEndsTheRun checks that a problem seen as it happens ends the
// run there, the first one told being its verdict, and that the checks
// do not run after it.
func TestFailEndsTheRun(t *testing.T) {
	r := toyRun(t, 1, &toy{}, links)
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		e.World.After(1500*time.Millisecond, func() {
			e.Fail("index 7 holds two commands")
			e.Fail("a later problem")
		})
		return func() {}, nil
	}
	checked := false
	r.Checks = append(r.Checks, func(*Env) (Verdict, error) { checked = true; return Verdict{}, nil })
	rec, err := r.Execute()
	require.NoError(t, err)
	assert.Equal(t, "index 7 holds two commands", rec.Problem)
	assert.Equal(t, 1500*time.Millisecond, rec.Summary.Now, "the run ends after the event that failed it")
	assert.False(t, checked)

	// Told while settling, after the last heal.
	r = toyRun(t, 1, &toy{}, links)
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		return func() { e.World.After(time.Millisecond, func() { e.Fail("late") }) }, nil
	}
	rec, err = r.Execute()
	require.NoError(t, err)
	assert.Equal(t, "late", rec.Problem)
}

// TestCalm checks that Env.Calm holds from each declared heal for the
// run's Progress, and at no other time.
func TestCalm(t *testing.T) {
	r := toyRun(t, 1, &toy{}, links)
	r.Workload = slowStart{r.Workload, 300 * time.Millisecond} // heals count from the clients' start
	require.NotEmpty(t, r.Nemesis.Heals)
	heal := r.Nemesis.Heals[0]
	got := map[time.Duration]bool{}
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		for _, at := range []time.Duration{heal - time.Millisecond, heal, heal + r.Progress - time.Millisecond, heal + r.Progress} {
			e.World.After(at, func() { got[at] = e.Calm() })
		}
		return func() {}, nil
	}
	rec, err := r.Execute()
	require.NoError(t, err)
	require.True(t, rec.OK(), rec.Problem)
	assert.Equal(t, map[time.Duration]bool{heal - time.Millisecond: false, heal: true, heal + r.Progress - time.Millisecond: true, heal + r.Progress: false}, got)
}
