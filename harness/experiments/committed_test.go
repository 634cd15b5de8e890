package experiments

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// committedHere are the experiments whose default run is cheap enough for
// `go test` and that no other test runs on its pinned seed:
// TestCommittedFigures runs each and checks docs/figures against it. CPU
// seconds (user) of `labsim run NAME -seed 1`, measured one at a time:
// all-minority 0.12, nami-cache 0.35, nami-failover 0.30, nami-latency
// 0.19, txn-concurrent-map 0.21, txn-acid-reads 0.25, put-latency 1.30,
// txn-acid-crash 1.24.
var committedHere = []string{"all-minority", "nami-cache", "nami-failover", "nami-latency", "txn-concurrent-map", "txn-acid-reads", "put-latency", "txn-acid-crash"}

// committedElsewhere are the cheap experiments another test already runs
// on their pinned seed, and checks with requireCommitted, by the test.
var committedElsewhere = map[string]string{
	"election-cdf":   "TestSameSeedSameFiles",               // 0.05 s of CPU
	"isolate-leader": "TestIsolateLeaderMeasuresReelection", // 0.10 s
	"kv-replication": "TestKVReplicationCommitted",          // 0.12 s
	"txn-failover":   "TestFailoverKillsEveryLeader",        // 1.19 s
}

// committedLeftOut are the experiments too costly to run in `go test` on
// their pinned seed, with the CPU seconds (user) of `labsim run NAME -seed
// 1` measured one at a time: their captions are checked only when `labsim
// figures` regenerates docs/figures (and piecewise, cut down, by the tests
// of their caption functions).
var committedLeftOut = map[string]float64{
	"leader-failure":        1.86,
	"txn-acid-table1":       1.89,
	"nami-workers":          1.94,
	"timeout-range":         2.05,
	"txn-scaling":           2.20,
	"txn-acid-shards":       4.45,
	"txn-acid-vs-2pl":       3.35,
	"concurrency":           8.91,
	"live-nodes":            6.21,
	"frangipani-contention": 6.44,
	"value-size":            6.45,
	"txn-vs-logorder":       7.30,
	"frangipani-tables":     8.94,
	"txn-latency":           11.81,
}

// TestCommittedFigures runs each experiment of committedHere on its pinned
// seed and checks that docs/figures holds what it computes: its CSV, and
// in index.md its captions and notes. A caption typed by hand that the
// data no longer bears out, or a figure not regenerated after a change,
// fails here. Every experiment of the catalogue is checked here, checked
// by the test committedElsewhere names, or left out for its cost.
func TestCommittedFigures(t *testing.T) {
	t.Parallel()
	tests, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	var source strings.Builder
	for _, f := range tests {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		source.Write(b)
	}
	for _, e := range All() {
		_, elsewhere := committedElsewhere[e.Name]
		_, left := committedLeftOut[e.Name]
		lists := 0
		for _, in := range []bool{slices.Contains(committedHere, e.Name), elsewhere, left} {
			if in {
				lists++
			}
		}
		assert.Equal(t, 1, lists, "%s: checked here, checked elsewhere or left out, once", e.Name)
		if elsewhere {
			assert.Contains(t, source.String(), fmt.Sprintf("requireCommitted(t, %q", e.Name), "%s names it", committedElsewhere[e.Name])
		}
	}
	for _, name := range committedHere {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, err := Lookup(name)
			require.NoError(t, err)
			r, err := e.Run(Params{Seed: e.Seed})
			require.NoError(t, err)
			requireCommitted(t, name, r)
		})
	}
}

// requireCommitted checks that docs/figures holds what r, a run of
// experiment name on its pinned seed, computes: its CSV byte for byte,
// and in index.md each figure's caption and each note.
func requireCommitted(t *testing.T, name string, r *Result) {
	t.Helper()
	var csv bytes.Buffer
	require.NoError(t, r.Table.WriteCSV(&csv))
	committed, err := os.ReadFile(filepath.Join("..", "..", "docs", "figures", name+".csv"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(committed, csv.Bytes()), "docs/figures/%s.csv is not what the code computes: go run ./cmd/labsim figures -out docs/figures", name)
	index, err := os.ReadFile(filepath.Join("..", "..", "docs", "figures", "index.md"))
	require.NoError(t, err)
	for _, f := range r.Figures {
		assert.Contains(t, string(index), fmt.Sprintf("%s ([SVG](%s.svg))", f.Caption, f.Name), "the caption of %s in docs/figures/index.md", f.Name)
	}
	for _, n := range r.Notes {
		assert.Contains(t, string(index), "- "+n+"\n", "a note of %s in docs/figures/index.md", name)
	}
}

// paperNumber is a number as docs/paper-figures.md and the index write
// one: digits, with decimals, thousands commas or an exponent.
var paperNumber = regexp.MustCompile(`\d+(?:[.,]\d+)*(?:e[+-]\d+)?`)

// paperVerdict is a row of docs/paper-figures.md's summary table.
var paperVerdict = regexp.MustCompile(`(?m)^\| 00\d \| [^|]+ \| ([a-z0-9-]+) \| (match|partly|differs|missing) \|$`)

// TestPaperFiguresQuoteTheFigures checks docs/paper-figures.md against
// docs/figures: every number of a bullet giving our results or judging
// them (one that begins "Ours", "The paper's" for our run of the paper's
// design, "Ratios" or "Verdict", up to the paragraph's end) appears in the
// index's section of the experiment its heading names or in that
// experiment's CSV, so that a regenerated figure whose
// numbers moved fails here until the page is brought up to date; every
// experiment named exists; and the verdict counts it states are its
// table's.
func TestPaperFiguresQuoteTheFigures(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "paper-figures.md"))
	require.NoError(t, err)
	index, err := os.ReadFile(filepath.Join("..", "..", "docs", "figures", "index.md"))
	require.NoError(t, err)
	counts := map[string]int{}
	for _, m := range paperVerdict.FindAllStringSubmatch(string(page), -1) {
		_, err := Lookup(m[1])
		assert.NoError(t, err)
		counts[m[2]]++
	}
	assert.Equal(t, 29, counts["match"]+counts["partly"]+counts["differs"]+counts["missing"], "the papers' figures and tables")
	verdicts := fmt.Sprintf("Verdicts: %d match, %d partly, %d differs, %d missing.", counts["match"], counts["partly"], counts["differs"], counts["missing"])
	assert.True(t, strings.Contains(string(page), verdicts), "docs/paper-figures.md should say %q", verdicts)
	heading := regexp.MustCompile(`\(([a-z0-9-]+)\) — (match|partly|differs|missing)$`)
	checked := 0
	for _, section := range strings.Split(string(page), "\n### ")[1:] {
		title, body, _ := strings.Cut(section, "\n")
		m := heading.FindStringSubmatch(title)
		require.NotNil(t, m, "the heading %q names its experiment and verdict", title)
		name := m[1]
		_, err := Lookup(name)
		require.NoError(t, err, title)
		_, ownSection, ok := strings.Cut(string(index), "\n## "+name+"\n")
		require.True(t, ok, "%s in docs/figures/index.md", name)
		ownSection, _, _ = strings.Cut(ownSection, "\n## ")
		csv, err := os.ReadFile(filepath.Join("..", "..", "docs", "figures", name+".csv"))
		require.NoError(t, err)
		source := ownSection + string(csv)
		for _, bullet := range strings.Split(body, "\n- ")[1:] {
			if !strings.HasPrefix(bullet, "Ours") && !strings.HasPrefix(bullet, "The paper's") && !strings.HasPrefix(bullet, "Ratios") && !strings.HasPrefix(bullet, "Verdict") {
				continue
			}
			bullet, _, _ = strings.Cut(bullet, "\n\n")
			bullet = strings.Join(strings.Fields(bullet), " ")
			for _, n := range paperNumber.FindAllString(bullet, -1) {
				assert.True(t, strings.Contains(source, n), "%s: %s, in %q, is not in its index section or CSV", title, n, bullet)
				checked++
			}
		}
	}
	assert.Greater(t, checked, 100, "numbers checked")
}
