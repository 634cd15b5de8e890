package sweep

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// merge reads the results files given by name and text, and merges them.
func merge(t *testing.T, files map[string]string) (*Merged, error) {
	t.Helper()
	var all []*Results
	for _, name := range slices.Sorted(maps.Keys(files)) {
		r, err := read(name, files[name])
		require.NoError(t, err, name)
		all = append(all, r)
	}
	return Merge(all)
}

// shards makes the results files of all n shards of seeds 1..count of
// scenario, named s0, s1, ...; seeds divisible by 7 fail.
func shards(t *testing.T, scenario string, count int64, n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files["s"+string(rune('0'+i))] = shardFile(t, scenario, 1, count, i, n, func(s int64) bool { return s%7 == 0 }, nil)
	}
	return files
}

// TestMergeReportsEveryFailingSeed checks that a merge of every shard, some
// of them empty, gives the failing seeds in order, each with the shard it
// came from and its replay line.
func TestMergeReportsEveryFailingSeed(t *testing.T) {
	m, err := merge(t, shards(t, "kv", 30, 8))
	require.NoError(t, err)
	assert.Equal(t, 30, m.Summary.Ran)
	assert.Equal(t, 8, m.Summary.Shards)
	assert.Equal(t, []int64{7, 14, 21, 28}, m.Summary.Failing)
	require.Len(t, m.Failing, 4)
	assert.Equal(t, "s6", m.Failing[0].From) // seed 7 is the 6th of shard 6
	assert.Equal(t, "labsim sweep kv -seed 14", m.Failing[1].Replay)
	assert.Equal(t, "seed 21 failed", m.Failing[2].Problem)
	assert.InDelta(t, 15.0, m.SeedSeconds, 1e-9)
	assert.InDelta(t, 12.0, m.Summary.CPUSeconds, 1e-9, "the shards' CPU time, added up")

	files := shards(t, "kv", 30, 8)
	files["s5"] = strings.Replace(files["s5"], `"cpu_s":1.5,`, "", 1)
	m, err = merge(t, files)
	require.NoError(t, err)
	assert.Zero(t, m.Summary.CPUSeconds, "not every shard said")

	m, err = merge(t, shards(t, "kv", 3, 5)) // shards 3/5 and 4/5 ran no seed
	require.NoError(t, err)
	assert.Equal(t, 3, m.Summary.Ran)
	assert.Empty(t, m.Failing)
}

// TestMergeRefusesWhatDoesNotAddUp checks that a merge refuses a missing
// shard, a shard given twice, and files of another scenario, planted bug,
// seed range, split or build, naming the files or shards.
func TestMergeRefusesWhatDoesNotAddUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(files map[string]string)
		err  string
	}{
		{"missing", func(f map[string]string) { delete(f, "s3") }, "shard 3/4 of seeds 1 to 20 is missing (3 of 4 shards given)"},
		{"two missing", func(f map[string]string) { delete(f, "s1"); delete(f, "s3") }, "shards 1/4 and 3/4 of seeds 1 to 20 are missing (2 of 4 shards given)"},
		{"twice", func(f map[string]string) { f["s4"] = f["s2"] }, "shard 2/4 is there twice: s2 and s4"},
		{"scenario", func(f map[string]string) { f["s1"] = shardFile(t, "txn", 1, 20, 1, 4, nil, nil) }, "mixed scenarios: s0 is kv, s1 is txn"},
		{"plant", func(f map[string]string) {
			f["s1"] = strings.ReplaceAll(f["s1"], `"scenario":"kv"`, `"scenario":"kv","plant":"bug"`)
		}, `mixed scenarios: s0 is kv, s1 is kv -plant "bug"`},
		{"seeds", func(f map[string]string) { f["s1"] = shardFile(t, "kv", 1, 21, 1, 4, nil, nil) }, "mixed sweeps: s0 is of seeds 1 to 20, s1 of seeds 1 to 21"},
		{"first", func(f map[string]string) { f["s1"] = shardFile(t, "kv", 0, 20, 1, 4, nil, nil) }, "mixed sweeps: s0 is of seeds 1 to 20, s1 of seeds 0 to 19"},
		{"split", func(f map[string]string) { f["s1"] = shardFile(t, "kv", 1, 20, 1, 5, nil, nil) }, "mixed splits: s0 is shard 0 of 4, s1 shard 1 of 5"},
		{"build", func(f map[string]string) {
			f["s2"] = strings.Replace(f["s2"], `"build":"test"`, `"build":"other"`, 1)
		}, "mixed builds: s0 was run by test (go), s2 by other (go)"},
	} {
		files := shards(t, "kv", 20, 4)
		tc.edit(files)
		_, err := merge(t, files)
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.err, tc.name)
		}
	}
	_, err := Merge(nil)
	assert.EqualError(t, err, "no results to merge")
}
