package sweep

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// A Merged is the verdict of a whole sweep, put together from the results
// of its shards.
type Merged struct {
	// Summary sums the shards up: Shard is 0, Shards how many the sweep
	// was split into, ShardFrom the shards' engine if they share one;
	// Ran, Failed and Failing count every shard's seeds, WallSeconds is
	// the longest shard's wall time, and CPUSeconds adds up the shards'
	// (0 unless every shard has it).
	Summary SummaryRecord
	// Failing are the failing seeds, in seed order.
	Failing []Failure
	// SeedSeconds adds up every seed's wall time: what the sweep cost in
	// core-seconds, with one seed running on each core.
	SeedSeconds float64
}

// A Failure is a failing seed's line and the results file it came from.
type Failure struct {
	SeedRecord
	From string
}

// Merge checks that files (as ReadResults returns them) are the shards of one sweep, each once and none
// missing, and returns their verdict. The files must agree on the
// scenario and planted bug, the seeds, the number of shards and the build
// that ran them; the error names the files that do not, or the shards that
// are missing or given twice.
func Merge(files []*Results) (*Merged, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	first := files[0]
	f0 := first.Summary
	if f0.Shards <= 0 {
		return nil, fmt.Errorf("%s: %d shards: want at least 1", first.Name, f0.Shards)
	}
	byShard := make([]*Results, f0.Shards)
	for _, f := range files {
		s := f.Summary
		switch {
		case s.Shards <= 0 || s.Shard < 0 || s.Shard >= s.Shards:
			return nil, fmt.Errorf("%s: shard %d/%d: want i/n with 0 <= i < n", f.Name, s.Shard, s.Shards)
		case s.Scenario != f0.Scenario || s.Plant != f0.Plant:
			return nil, fmt.Errorf("mixed scenarios: %s is %s, %s is %s", first.Name, describe(f0.Scenario, f0.Plant), f.Name, describe(s.Scenario, s.Plant))
		case s.First != f0.First || s.Seeds != f0.Seeds:
			return nil, fmt.Errorf("mixed sweeps: %s is of seeds %s, %s of seeds %s", first.Name, f0.Span(), f.Name, s.Span())
		case s.Shards != f0.Shards:
			return nil, fmt.Errorf("mixed splits: %s is shard %d of %d, %s shard %d of %d", first.Name, f0.Shard, f0.Shards, f.Name, s.Shard, s.Shards)
		case s.Build != f0.Build || s.Go != f0.Go:
			return nil, fmt.Errorf("mixed builds: %s was run by %s (%s), %s by %s (%s); a seed replays alike only within one build", first.Name, f0.Build, f0.Go, f.Name, s.Build, s.Go)
		case byShard[s.Shard] != nil:
			return nil, fmt.Errorf("shard %d/%d is there twice: %s and %s", s.Shard, s.Shards, byShard[s.Shard].Name, f.Name)
		}
		byShard[s.Shard] = f
	}
	var missing []string
	for i, f := range byShard {
		if f == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, f0.Shards))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s missing (%d of %d shards given)", listShards(missing, f0.Span()), len(byShard)-len(missing), f0.Shards)
	}

	m := &Merged{Summary: SummaryRecord{
		Format: ResultsFormat, Kind: KindSummary, Scenario: f0.Scenario, Plant: f0.Plant,
		First: f0.First, Seeds: f0.Seeds, Shards: f0.Shards, ShardFrom: f0.ShardFrom,
		Build: f0.Build, Go: f0.Go, Failing: []int64{},
	}}
	cpu := true
	for _, f := range byShard {
		s := f.Summary
		m.Summary.Ran += s.Ran
		m.Summary.CPUSeconds += s.CPUSeconds
		cpu = cpu && s.CPUSeconds > 0
		m.Summary.WallSeconds = max(m.Summary.WallSeconds, s.WallSeconds)
		m.Summary.Parallel = max(m.Summary.Parallel, s.Parallel)
		if s.ShardFrom != m.Summary.ShardFrom {
			m.Summary.ShardFrom = "mixed"
		}
		for _, r := range f.Seeds {
			m.SeedSeconds += r.WallSeconds
			if !r.OK() {
				m.Failing = append(m.Failing, Failure{r, f.Name})
			}
		}
	}
	if !cpu {
		m.Summary.CPUSeconds = 0
	}
	slices.SortFunc(m.Failing, func(a, b Failure) int { return cmp.Compare(a.Seed, b.Seed) })
	for _, f := range m.Failing {
		m.Summary.Failing = append(m.Summary.Failing, f.Seed)
	}
	m.Summary.Failed = len(m.Failing)
	return m, nil
}

// listShards writes a list of shards, with the verb that follows it:
// "shard 3/8 of seeds 1 to 1000 is", "shards 3/8 and 5/8 of ... are", the
// first ten of a longer list.
func listShards(shards []string, span string) string {
	const most = 10
	switch n := len(shards); {
	case n == 1:
		return "shard " + shards[0] + " of seeds " + span + " is"
	case n <= most:
		return "shards " + strings.Join(shards[:n-1], ", ") + " and " + shards[n-1] + " of seeds " + span + " are"
	default:
		return fmt.Sprintf("shards %s and %d more of seeds %s are", strings.Join(shards[:most], ", "), n-most, span)
	}
}
