package search

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLockSafetyCatchesAnExpiredLeaseAndPassesTheCorrectCode(t *testing.T) {
	sc := scenario(t, "locks")
	o := Options{Strategy: DFS, Seed: 1, Depth: 150, Budget: 20_000, Faults: -1, Drops: -1, Workers: 2, Bug: "clerk serves after its lease ran out"}
	res, err := Search(sc, o)
	require.NoError(t, err)
	require.NotNil(t, res.Violation, "DFS finds a clerk serving after its lease ran out")
	assert.Equal(t, "lock safety", Kind(res.Violation.Err), "%v", res.Violation.Err)
	assert.Contains(t, res.Violation.Err.Error(), "without a lock whose lease is running")
	file, err := RunFile(sc, res.Options, res.Violation)
	require.NoError(t, err)
	f, err := ReplayRunFile(Scenarios(), file)
	require.NoError(t, err)
	assert.Equal(t, res.Violation.Summary, f.Summary, "the run file replays to the same run")

	o.Bug = ""
	correct, err := Search(sc, o)
	require.NoError(t, err)
	assert.Nil(t, correct.Violation, "the correct clerks keep lock safety: %v", correct.Violation)
	assert.GreaterOrEqual(t, correct.States, 20_000)
	goal, err := Search(sc, Options{Strategy: DFS, Seed: 1, Depth: 200, Budget: 20_000, Faults: 0, Drops: -1, Workers: 2, StopAtGoal: true})
	require.NoError(t, err)
	require.NotNil(t, goal.Goal, "some schedule gets all four operations answered")
}
