package search

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKVSearchFindsTheRSMBugsByLinearizability(t *testing.T) {
	sc := scenario(t, "kv-ops")
	clean, err := Search(sc, Options{Strategy: DFS, Seed: 1, Depth: 100, Budget: 10_000, Faults: -1, Drops: -1, Dups: -1, Workers: 2})
	require.NoError(t, err)
	assert.Nil(t, clean.Violation, "the correct service's histories are linearizable: %v", clean.Violation)
	for _, c := range []struct {
		bug   string
		st    Strategy
		depth int
	}{
		{"writes answered before they commit", PCT, 150},
		{"reads served from any server's local state", PCT, 150},
		{"no de-duplication: a retried write applies twice", DFS, 150},
	} {
		o := Options{Strategy: c.st, Seed: 1, Depth: c.depth, Budget: 40_000, Faults: -1, Drops: -1, Dups: -1, Workers: 2, Bug: c.bug}
		res, err := Search(sc, o)
		require.NoError(t, err)
		require.NotNil(t, res.Violation, "%s finds %q", c.st, c.bug)
		assert.Equal(t, "linearizability", Kind(res.Violation.Err))
		file, err := RunFile(sc, res.Options, res.Violation)
		require.NoError(t, err)
		f, err := ReplayRunFile(Scenarios(), file)
		require.NoError(t, err, "the run file replays")
		assert.Equal(t, res.Violation.Err.Error(), f.Err.Error())
		t.Logf("%s: %s, %d states, %d steps: %v", c.bug, c.st, res.States, len(res.Violation.Path), res.Violation.Err)
	}
}

func TestKVScenarioRefusesABugItCannotShow(t *testing.T) {
	_, err := buildKV(1, "lease reads without a margin for clock drift")
	assert.ErrorContains(t, err, `cannot plant "lease reads without a margin for clock drift"`)
}
