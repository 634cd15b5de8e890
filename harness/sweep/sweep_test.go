package sweep

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSeedsAndShards(t *testing.T) {
	all, err := Seeds(100, 7, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, []int64{100, 101, 102, 103, 104, 105, 106}, all)
	s1, err := Seeds(100, 7, 1, 3)
	require.NoError(t, err)
	assert.Equal(t, []int64{101, 104}, s1)

	_, err = Seeds(1, 0, 0, 1)
	assert.EqualError(t, err, "seed count 0 is not positive")
	_, err = Seeds(1, 5, 3, 3)
	assert.EqualError(t, err, "shard 3/3: want i/n with 0 <= i < n")
	i, n, err := ParseShard("2/5")
	require.NoError(t, err)
	assert.Equal(t, [2]int{2, 5}, [2]int{i, n})
	_, _, err = ParseShard("two/5")
	assert.EqualError(t, err, `shard "two/5" is not of the form i/n, e.g. 0/4`)
	_, err = Lookup("nope")
	assert.ErrorContains(t, err, `unknown scenario "nope"; the scenarios are: kv-linearizability`)
}

func TestKVScenarioPassesAndReplays(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("kv-linearizability")
	require.NoError(t, err)
	seeds := []int64{1, 2}
	calls := 0
	out := Run(sc, seeds, 2, t.TempDir(), func(done, failed int) { calls++ })
	assert.Equal(t, 2, calls)
	for _, o := range out {
		assert.True(t, o.OK(), "seed %d: %s", o.Seed, o.Problem)
		assert.Greater(t, o.Ops, 100)
		assert.Empty(t, o.FaultLog, "a sweep keeps no fault log for a seed that passed")
	}
	again := sc.Run(1, t.TempDir(), nil)
	assert.Contains(t, again.FaultLog, "kill", "a replay has its fault log")
	assert.Equal(t, out[0].Summary, again.Summary, "a seed replays to the same trace")
	assert.NotEqual(t, out[0].Summary.Hash, out[1].Summary.Hash)
}

func TestRunKeepsTheFaultLogsOfFailingSeeds(t *testing.T) {
	sc := Scenario{Name: "odd-seeds-fail", Run: func(seed int64, _ string, _ io.Writer) Outcome {
		o := Outcome{Seed: seed, FaultLog: fmt.Sprintf("seed %d's faults", seed)}
		if seed%2 == 1 {
			o.Problem = "odd"
		}
		return o
	}}
	out := Run(sc, []int64{1, 2, 3, 4}, 2, "", nil)
	assert.Equal(t, []string{"seed 1's faults", "", "seed 3's faults", ""},
		[]string{out[0].FaultLog, out[1].FaultLog, out[2].FaultLog, out[3].FaultLog})
}

// TestLeaseElectionsPasses runs kv-lease-elections' first seed with no bug
// planted: it must pass, its nemesis having let the leader back in
// through a bridge. Sweeps try the many seeds: 10 000 passed, any time
// (README.md's table of sweeps).
func TestLeaseElectionsPasses(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("kv-lease-elections")
	require.NoError(t, err)
	o := sc.Run(1, t.TempDir(), nil)
	assert.True(t, o.OK(), "seed 1: %s\nfault log:\n%s", o.Problem, o.FaultLog)
	assert.Greater(t, o.Ops, 100)
	assert.Contains(t, o.FaultLog, "bridge")
}

// TestTargetedScenariosPassAndReplay runs the first seed of each targeted
// scenario, and of one list scenario of each service whose own tests
// seldom replay (paper 003's whole design, log ordering, clerks isolated
// from frangipani's servers), with no bug planted, twice: it must pass,
// and replay to the same trace.
func TestTargetedScenariosPassAndReplay(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"raft-figure8", "raft-votes", "kv-lease-drift", "txn-leader-outages", "txn-crossing", "locks-readers",
		"txn-lists-acid-rm", "logorder-lists", "logorder-failover", "locks-isolate", "soak-txn-kills", "soak-locks"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := Lookup(name)
			require.NoError(t, err)
			first, again := sc.Run(1, t.TempDir(), nil), sc.Run(1, t.TempDir(), nil)
			assert.True(t, first.OK(), "seed 1: %s", first.Problem)
			assert.Greater(t, first.Ops, 15, "transactions ran (txn-leader-outages, most of whose 10 s may be outages, the fewest)")
			assert.Equal(t, first.Summary, again.Summary, "seed 1 replays to the same trace")
			assert.NotZero(t, first.Summary.Hash)
			assert.Equal(t, first.Drawn, again.Drawn, "seed 1 draws the same configuration")
			if name == "txn-crossing" {
				assert.Regexp(t, `^\d+(\.\d+)?[mµ]?s$`, DrawnMap(first.Drawn)["second-prepare-hold"], "the hold the seed drew is recorded")
			}
		})
	}
}

// TestEachCallsOncePerSeed checks that Each hands every seed's outcome
// over once, with its index in the seeds and its wall time.
func TestEachCallsOncePerSeed(t *testing.T) {
	sc := Scenario{Name: "echo", Run: func(seed int64, _ string, _ io.Writer) Outcome { return Outcome{Seed: seed} }}
	seeds := []int64{5, 9, 2, 7, 11}
	got := map[int]int64{}
	Each(sc, seeds, 3, "", func(k int, o Outcome) {
		_, twice := got[k]
		assert.False(t, twice, "index %d twice", k)
		got[k] = o.Seed
		assert.GreaterOrEqual(t, o.Wall, time.Duration(0))
	})
	assert.Equal(t, map[int]int64{0: 5, 1: 9, 2: 2, 3: 7, 4: 11}, got)
}

// TestRunSeedNamesTheSeed checks that a seed whose run could not be
// built (its outcome has no seed of its own) is reported under its seed.
func TestRunSeedNamesTheSeed(t *testing.T) {
	sc := Scenario{Name: "unbuildable", Run: func(int64, string, io.Writer) Outcome { return Outcome{Problem: "refused"} }}
	o := RunSeed(sc, 10206, "", nil)
	assert.Equal(t, int64(10206), o.Seed)
	assert.Equal(t, "refused", o.Problem)
}

func TestRunReportsAPanicAsAFailure(t *testing.T) {
	sc := Scenario{Name: "panics", Run: func(seed int64, _ string, _ io.Writer) Outcome {
		if seed == 2 {
			var log []int
			_ = log[seed] // a node's bug, say
		}
		return Outcome{Seed: seed}
	}}
	out := Run(sc, []int64{1, 2}, 2, "", nil)
	assert.True(t, out[0].OK())
	assert.Equal(t, int64(2), out[1].Seed)
	assert.Contains(t, out[1].Problem, "panic: runtime error: index out of range [2] with length 0")
	assert.Contains(t, out[1].Problem, "sweep_test.go", "with the stack where it was raised")
}

// TestDescriptionsStandAlone checks that each scenario says what it does
// in sentences that need no other scenario's description to be read.
func TestDescriptionsStandAlone(t *testing.T) {
	for _, s := range Scenarios() {
		assert.Regexp(t, `^[A-Z][^\n]*\.$`, s.Description, s.Name)
		for _, other := range []string{"the same", "as above", "as kv-"} {
			assert.NotContains(t, strings.ToLower(s.Description), other, s.Name)
		}
	}
}

// TestSoakAcidCrashesKillsInTurn runs soak-acid-crashes' first seed: paper
// 003's five crash runs strike in turn (a shard follower, a shard leader,
// the five shards' leaders, then two transaction managers), every host
// comes back, and the run passes, progress after each restart included.
func TestSoakAcidCrashesKillsInTurn(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("soak-acid-crashes")
	require.NoError(t, err)
	o := sc.Run(1, t.TempDir(), nil)
	require.True(t, o.OK(), "seed 1: %s\nfault log:\n%s", o.Problem, o.FaultLog)
	assert.Equal(t, 9, strings.Count(o.FaultLog, " kill "), "1 + 1 + 5 + 1 + 1 hosts killed:\n%s", o.FaultLog)
	assert.Equal(t, 9, strings.Count(o.FaultLog, " restart "), "and each restarted")
	assert.Equal(t, 2, strings.Count(o.FaultLog, " kill coord"), "two of them transaction managers")
	assert.Greater(t, o.Ops, 1000)
}
