package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardsCoverEverySeedOnce checks the shard arithmetic over awkward
// counts: more shards than seeds, prime counts, a last shard short, and
// seeds that end at the largest there is. Every seed falls to exactly one
// shard, and the shards differ in size by at most one seed.
func TestShardsCoverEverySeedOnce(t *testing.T) {
	for _, count := range []int64{1, 2, 5, 7, 97, 100, 1000} {
		for _, n := range []int{1, 2, 3, 7, 8, 13, 97, 101, 1001} {
			for _, first := range []int64{1, -3, math.MaxInt64 - count + 1} {
				seen := map[int64]int{}
				smallest, largest := math.MaxInt, 0
				for i := range n {
					seeds, err := Seeds(first, count, i, n)
					require.NoError(t, err)
					smallest, largest = min(smallest, len(seeds)), max(largest, len(seeds))
					for _, s := range seeds {
						seen[s]++
						assert.True(t, inShard(s, SummaryRecord{First: first, Seeds: count, Shard: i, Shards: n}), "seed %d in shard %d/%d", s, i, n)
					}
				}
				require.Len(t, seen, int(count), "seeds %d from %d in %d shards", count, first, n)
				for k := range count {
					assert.Equal(t, 1, seen[first+k], "seed %d of %d from %d in %d shards", first+k, count, first, n)
				}
				assert.LessOrEqual(t, largest-smallest, 1, "%d seeds in %d shards", count, n)
				if int64(n) > count {
					assert.Zero(t, smallest, "%d seeds in %d shards: some shard is empty", count, n)
				}
			}
		}
	}
}

// shardFile makes the results file of shard i/n of seeds first..first+count-1
// of a scenario whose seeds fail when fails says so; edit changes each
// seed line before it is written.
func shardFile(t *testing.T, scenario string, first, count int64, i, n int, fails func(int64) bool, edit func(*SeedRecord)) string {
	t.Helper()
	seeds, err := Seeds(first, count, i, n)
	require.NoError(t, err)
	var b strings.Builder
	sum := SummaryRecord{Format: ResultsFormat, Kind: KindSummary, Scenario: scenario, First: first, Seeds: count, Shard: i, Shards: n,
		Ran: len(seeds), Failing: []int64{}, WallSeconds: 1, CPUSeconds: 1.5, Parallel: 2, Build: "test", Go: "go"}
	for _, s := range seeds {
		r := SeedRecord{Format: ResultsFormat, Kind: KindSeed, Scenario: scenario, Seed: s, Verdict: VerdictOK, WallSeconds: 0.5,
			Trace: "0000000000000001", Replay: fmt.Sprintf("labsim sweep %s -seed %d", scenario, s)}
		if fails != nil && fails(s) {
			r.Verdict, r.Problem = VerdictFail, fmt.Sprintf("seed %d failed", s)
			sum.Failed++
			sum.Failing = append(sum.Failing, s)
		}
		if edit != nil {
			edit(&r)
		}
		line, err := json.Marshal(r)
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	line, err := json.Marshal(sum)
	require.NoError(t, err)
	b.Write(append(line, '\n'))
	return b.String()
}

// read reads a results file from its text.
func read(name, text string) (*Results, error) {
	return ReadResults(name, strings.NewReader(text))
}

// TestReadResultsRefusesWhatIsNotWhole checks that a results file with a
// gap, an overlap, a line cut short, a missing summary, another format or
// a summary that does not add up is refused with an error naming it.
func TestReadResultsRefusesWhatIsNotWhole(t *testing.T) {
	good := shardFile(t, "kv", 1, 10, 1, 3, func(s int64) bool { return s == 5 }, nil)
	r, err := read("good", good)
	require.NoError(t, err)
	assert.Len(t, r.Seeds, 3) // 2, 5, 8
	assert.Equal(t, []int64{5}, r.Summary.Failing)

	lines := strings.SplitAfter(strings.TrimSuffix(good, "\n"), "\n")
	seedLines, summary := lines[:len(lines)-1], lines[len(lines)-1]
	for _, tc := range []struct {
		name, text, err string
	}{
		{"gap", seedLines[0] + seedLines[2] + summary, "gap: seed 5 of shard 1/3 is missing (2 of its 3 seeds are there)"},
		{"twice", seedLines[0] + seedLines[0] + seedLines[1] + seedLines[2] + summary, "twice: seed 2 is there twice"},
		{"overlap", strings.Replace(good, `"seed":8,`, `"seed":9,`, 1), "overlap: seed 9 is not one of shard 1/3 of seeds 1 to 10"},
		{"outside", strings.Replace(good, `"seed":8,`, `"seed":11,`, 1), "outside: seed 11 is not one of shard 1/3"},
		{"no summary", strings.Join(seedLines, ""), "no summary: no summary line after 3 seed lines: the sweep that wrote it did not finish"},
		{"cut", good[:len(good)-10], "cut:4: not a results line (a JSON object), or cut short"},
		{"empty", "", "empty: no summary line after 0 seed lines"},
		{"after summary", good + seedLines[0], "after summary:5: a line after the summary (line 4)"},
		{"format", strings.ReplaceAll(good, `"format":1`, `"format":2`), "format:1: results format 2; this labsim reads format 1 only"},
		{"no format", `{"kind":"seed"}` + "\n", `no format:1: not a results line: no "format"`},
		{"kind", strings.Replace(good, `"kind":"seed"`, `"kind":"seeds"`, 1), `kind:1: unknown kind of line "seeds"`},
		{"mixed", strings.Replace(good, `"scenario":"kv"`, `"scenario":"txn"`, 1), "mixed: seed 2 is of txn, the summary of kv"},
		{"verdict", strings.Replace(good, `"verdict":"ok"`, `"verdict":"maybe"`, 1), `verdict: seed 2: verdict "maybe"`},
		{"ran", strings.Replace(good, `"ran":3`, `"ran":4`, 1), "ran: the summary says 4 seeds ran, the file has 3"},
		{"failed", strings.Replace(good, `"failing":[5]`, `"failing":[8]`, 1), "failed: the summary says 1 seeds failed ([8]), the seed lines 1 ([5])"},
		{"shard", strings.Replace(good, `"shard":1`, `"shard":3`, 1), "shard: the summary's shard 3/3: want i/n with 0 <= i < n"},
		{"seeds", strings.Replace(good, `"seeds":10`, `"seeds":0`, 1), "seeds: the summary's seed count 0 is not positive"},
		{"bad field", strings.Replace(good, `"seed":2`, `"seed":"2"`, 1), "bad field:1: a bad seed line"},
	} {
		_, err := read(tc.name, tc.text)
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.err, tc.name)
		}
	}
}

// TestReadResultsIgnoresNewFields checks that a reader of format 1 reads a
// line with a field it does not know, as the format promises.
func TestReadResultsIgnoresNewFields(t *testing.T) {
	text := shardFile(t, "kv", 1, 3, 0, 1, nil, nil)
	_, err := read("new", strings.ReplaceAll(text, `"format":1,`, `"format":1,"later":[1,2],`))
	assert.NoError(t, err)
}
