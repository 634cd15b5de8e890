package sweep

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/replab/replab/harness/testbed"
)

// ResultsFormat is the version of the results format that labsim sweep
// -json writes and labsim merge reads. A reader refuses a file of another
// version. Within a version, fields are only ever added, never renamed,
// removed or given another meaning, and a reader ignores fields it does
// not know.
//
// A results file is JSON Lines: one JSON object a line, each with
// "format" (this number) and "kind". Every seed the sweep (or the shard of
// a sweep) ran has a line of kind "seed" (a SeedRecord), in seed order;
// the last line is the one of kind "summary" (a SummaryRecord). A file
// without it was cut short: its sweep did not finish.
const ResultsFormat = 1

// The kinds of line in a results file.
const (
	KindSeed    = "seed"
	KindSummary = "summary"
)

// ShardFromMerge is the ShardFrom of the summary of a file that labsim
// merge wrote: one shard, the whole sweep, put together from the shards.
const ShardFromMerge = "merge"

// The verdicts of a seed.
const (
	VerdictOK   = "ok"
	VerdictFail = "fail"
)

// A SeedRecord is the line of a results file that holds one seed's verdict.
type SeedRecord struct {
	Format   int    `json:"format"`          // ResultsFormat
	Kind     string `json:"kind"`            // KindSeed
	Scenario string `json:"scenario"`        // the scenario's name
	Plant    string `json:"plant,omitempty"` // the planted bug switched on (-plant), if any
	Seed     int64  `json:"seed"`
	// Drawn is what the seed drew of the run's configuration (Outcome's
	// Drawn); absent for a scenario whose configuration is fixed.
	Drawn   map[string]string `json:"drawn,omitempty"`
	Verdict string            `json:"verdict"`           // VerdictOK or VerdictFail
	Problem string            `json:"problem,omitempty"` // why it failed
	Ops     int               `json:"ops"`               // client operations recorded
	// VirtualSeconds is the virtual time the run took, WallSeconds the
	// wall time; Events and Trace are its world's event count and trace
	// hash (16 hex digits), which a replay of the seed must give again.
	VirtualSeconds float64 `json:"virtual_s"`
	WallSeconds    float64 `json:"wall_s"`
	Events         uint64  `json:"events"`
	Trace          string  `json:"trace"`
	// Replay is the command that replays the seed, as the sweep's
	// program was run.
	Replay string `json:"replay"`
	// File is what the run wrote for its failure, if anything:
	// porcupine's visualization of a violation, a path as the sweep saw it.
	File string `json:"file,omitempty"`
}

// OK reports whether the seed passed.
func (r SeedRecord) OK() bool { return r.Verdict == VerdictOK }

// A SummaryRecord is the last line of a results file: which seeds the
// sweep was asked to run and how it went.
type SummaryRecord struct {
	Format   int    `json:"format"` // ResultsFormat
	Kind     string `json:"kind"`   // KindSummary
	Scenario string `json:"scenario"`
	Plant    string `json:"plant,omitempty"`
	// The whole sweep is the Seeds seeds from First on; this file holds
	// shard Shard of Shards of it: the seeds First+Shard, First+Shard+Shards,
	// ... (Seeds).
	First  int64 `json:"first"`
	Seeds  int64 `json:"seeds"`
	Shard  int   `json:"shard"`
	Shards int   `json:"shards"`
	// ShardFrom names where the shard came from: "" for -shard i/n, the
	// engine -shard auto read it from ("kubernetes", "github-actions",
	// "slurm"), or ShardFromMerge in a file labsim merge wrote.
	ShardFrom string  `json:"shard_from,omitempty"`
	Ran       int     `json:"ran"`     // seed lines in the file
	Failed    int     `json:"failed"`  // of them, failing
	Failing   []int64 `json:"failing"` // the failing seeds, in order
	// WallSeconds is the wall time of the whole shard, with Parallel
	// seeds at a time, and CPUSeconds the CPU time (user and system) its
	// process used: the shard's cost in core-seconds, however busy the
	// machine was (absent where the system does not say).
	WallSeconds float64 `json:"wall_s"`
	Parallel    int     `json:"parallel"`
	CPUSeconds  float64 `json:"cpu_s,omitempty"`
	// Build names the program that ran the sweep (its module version and
	// VCS revision, as far as it knows them), and Go the Go release that
	// built it: seeds replay alike only within one build.
	Build string `json:"build"`
	Go    string `json:"go"`
}

// ShardSeeds returns the seeds of the summary's shard.
func (s SummaryRecord) ShardSeeds() ([]int64, error) {
	return Seeds(s.First, s.Seeds, s.Shard, s.Shards)
}

// Span writes the range of the whole sweep's seeds: "1 to 1000".
func (s SummaryRecord) Span() string {
	return fmt.Sprintf("%d to %d", s.First, s.First+s.Seeds-1)
}

// Results are one results file, read and checked.
type Results struct {
	Name    string       // the file's name, for messages
	Seeds   []SeedRecord // in seed order
	Summary SummaryRecord
}

// maxLine bounds a results line: a failing seed's problem holds at most a
// panic's stack, far less.
const maxLine = 16 << 20

// ReadResults reads a results file called name from r and checks it: every
// line of the known format and kind, the summary last and once, and the
// seed lines exactly the seeds of the summary's shard, once each, of its
// scenario, adding up to its counts. The error names the file, the line
// and the bad value.
func ReadResults(name string, r io.Reader) (*Results, error) {
	res := &Results{Name: name}
	var scenario, plant string // the last seen, shared by the lines that repeat them
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line, summaryAt := 0, 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		at := fmt.Sprintf("%s:%d", name, line)
		if summaryAt > 0 {
			return nil, fmt.Errorf("%s: a line after the summary (line %d): the summary must be last", at, summaryAt)
		}
		var head struct {
			Format *int   `json:"format"`
			Kind   string `json:"kind"`
		}
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			return nil, fmt.Errorf("%s: not a results line (a JSON object), or cut short: %v", at, err)
		}
		switch {
		case head.Format == nil:
			return nil, fmt.Errorf("%s: not a results line: no \"format\"", at)
		case *head.Format != ResultsFormat:
			return nil, fmt.Errorf("%s: results format %d; this labsim reads format %d only", at, *head.Format, ResultsFormat)
		}
		var err error
		switch head.Kind {
		case KindSeed:
			var s SeedRecord
			err = json.Unmarshal(sc.Bytes(), &s)
			// A million seeds' lines are held at once: strings that every
			// line repeats are kept once.
			s.Kind = KindSeed
			if s.Verdict == VerdictOK {
				s.Verdict = VerdictOK
			}
			if s.Scenario == scenario {
				s.Scenario = scenario
			}
			if s.Plant == plant {
				s.Plant = plant
			}
			scenario, plant = s.Scenario, s.Plant
			res.Seeds = append(res.Seeds, s)
		case KindSummary:
			err = json.Unmarshal(sc.Bytes(), &res.Summary)
			summaryAt = line
		default:
			return nil, fmt.Errorf("%s: unknown kind of line %q (want %q or %q)", at, head.Kind, KindSeed, KindSummary)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: a bad %s line: %v", at, head.Kind, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: after line %d: %v", name, line, err)
	}
	if summaryAt == 0 {
		return nil, fmt.Errorf("%s: no summary line after %d seed lines: the sweep that wrote it did not finish, or the file was cut short", name, len(res.Seeds))
	}
	if err := res.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// check checks that the seed lines are what the summary says.
func (res *Results) check() error {
	s := res.Summary
	switch {
	case s.Scenario == "":
		return errors.New("the summary names no scenario")
	case s.Seeds <= 0:
		return fmt.Errorf("the summary's seed count %d is not positive", s.Seeds)
	case s.First > math.MaxInt64-(s.Seeds-1):
		return fmt.Errorf("the summary's seeds from %d, %d of them, pass the largest seed", s.First, s.Seeds)
	case s.Shards <= 0 || s.Shard < 0 || s.Shard >= s.Shards:
		return fmt.Errorf("the summary's shard %d/%d: want i/n with 0 <= i < n", s.Shard, s.Shards)
	}
	want, err := s.ShardSeeds()
	if err != nil {
		return err
	}
	seen := make([]bool, len(want)) // by place in the shard
	var failing []int64
	for _, r := range res.Seeds {
		switch {
		case r.Scenario != s.Scenario || r.Plant != s.Plant:
			return fmt.Errorf("seed %d is of %s, the summary of %s", r.Seed, describe(r.Scenario, r.Plant), describe(s.Scenario, s.Plant))
		case r.Verdict != VerdictOK && r.Verdict != VerdictFail:
			return fmt.Errorf("seed %d: verdict %q (want %q or %q)", r.Seed, r.Verdict, VerdictOK, VerdictFail)
		case !inShard(r.Seed, s):
			return fmt.Errorf("seed %d is not one of shard %d/%d of seeds %s", r.Seed, s.Shard, s.Shards, s.Span())
		case seen[place(r.Seed, s)]:
			return fmt.Errorf("seed %d is there twice", r.Seed)
		}
		seen[place(r.Seed, s)] = true
		if !r.OK() {
			failing = append(failing, r.Seed)
		}
	}
	for k, seed := range want {
		if !seen[k] {
			return fmt.Errorf("seed %d of shard %d/%d is missing (%d of its %d seeds are there)", seed, s.Shard, s.Shards, len(res.Seeds), len(want))
		}
	}
	if !slices.IsSortedFunc(res.Seeds, bySeed) {
		slices.SortFunc(res.Seeds, bySeed)
	}
	slices.Sort(failing)
	switch {
	case s.Ran != len(res.Seeds):
		return fmt.Errorf("the summary says %d seeds ran, the file has %d", s.Ran, len(res.Seeds))
	case s.Failed != len(failing) || !slices.Equal(s.Failing, failing):
		return fmt.Errorf("the summary says %d seeds failed (%v), the seed lines %d (%v)", s.Failed, s.Failing, len(failing), failing)
	}
	return nil
}

// inShard reports whether seed is one of the seeds of s's shard.
func inShard(seed int64, s SummaryRecord) bool {
	if seed < s.First || seed > s.First+s.Seeds-1 {
		return false
	}
	k := uint64(seed - s.First) // cannot overflow: 0 <= seed-First < Seeds
	return k%uint64(s.Shards) == uint64(s.Shard)
}

// place returns the place of seed, one of the seeds of s's shard, among them.
func place(seed int64, s SummaryRecord) int {
	return int(uint64(seed-s.First) / uint64(s.Shards))
}

// bySeed orders seed lines by seed.
func bySeed(a, b SeedRecord) int { return cmp.Compare(a.Seed, b.Seed) }

// describe names a scenario, with its planted bug if any.
func describe(scenario, plant string) string {
	if plant == "" {
		return scenario
	}
	return fmt.Sprintf("%s -plant %q", scenario, plant)
}

// DrawnMap returns a seed's drawn configuration by name, as a results
// file holds it (a name drawn twice keeps its last value).
func DrawnMap(drawn []testbed.Param) map[string]string {
	if len(drawn) == 0 {
		return nil
	}
	m := make(map[string]string, len(drawn))
	for _, p := range drawn {
		m[p.Name] = p.Value
	}
	return m
}
