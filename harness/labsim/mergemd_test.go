package labsim

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/sweep"
)

// TestMergeWritesMarkdown checks the Markdown section of a swarm's sweep:
// its verdict, what its runs came to, and a row for every drawn
// parameter, numbers as min / median / max and choices as shares.
func TestMergeWritesMarkdown(t *testing.T) {
	var seeds []sweep.SeedRecord
	for i, servers := range []string{"7", "3", "5"} {
		net := "lan"
		if i == 2 {
			net = "wan"
		}
		seeds = append(seeds, sweep.SeedRecord{Seed: int64(i + 1), Verdict: sweep.VerdictOK,
			Drawn:          map[string]string{"servers": servers, "net": net, "keys": strconv.Itoa(10 * (i + 1))},
			VirtualSeconds: 1.5 * float64(i+1), Events: uint64(100 * (i + 1)), Ops: 10 * (i + 1)})
	}
	seeds[1].Verdict = sweep.VerdictFail
	m := &sweep.Merged{
		Summary: sweep.SummaryRecord{Scenario: "swarm-x", First: 1, Seeds: 3, Ran: 3, Failed: 1, Failing: []int64{2},
			CPUSeconds: 6, Build: "b", Go: "go1"},
		Failing: []sweep.Failure{{SeedRecord: seeds[1]}},
	}
	var b strings.Builder
	require.NoError(t, writeMarkdown(&b, m, seeds))
	md := b.String()
	assert.True(t, strings.HasPrefix(md, "## swarm-x\n\n3 seeds (1 to 3), 1 failing (seeds 2); built as b with go1; 6 CPU-seconds, 0.50 seeds a core-second.\n"), md)
	for _, row := range []string{
		"| virtual time | 1.5s | 3s | 4.5s |",
		"| events | 100 | 200 | 300 |",
		"| client operations | 10 | 20 | 30 |",
		"| servers | 3 | 3 | 5 | 7 |",
		"| keys | 3 | 10 | 20 | 30 |",
		"| net | 3 | lan 67 %, wan 33 % |",
	} {
		assert.Contains(t, md, row+"\n")
	}
}

// TestMergeMarkdownFlag checks -markdown end to end, and that a file it
// cannot create is refused before anything is printed.
func TestMergeMarkdownFlag(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.jsonl")
	r := labsim(nil, "sweep", "flaky", "-seeds", "2", "-json", res, "-out", t.TempDir())
	require.Equal(t, exitFailed, r.code, r.stderr)
	md := filepath.Join(dir, "flaky.md")
	r = labsim(nil, "merge", res, "-markdown", md)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stdout, "markdown: "+md+"\n")
	assert.FileExists(t, md)

	bad := filepath.Join(dir, "no-such-dir", "x.md")
	r = labsim(nil, "merge", res, "-markdown", bad)
	assert.Equal(t, exitUsage, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "-markdown "+bad)
}
