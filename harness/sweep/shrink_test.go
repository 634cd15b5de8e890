package sweep

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/shrink"
	"github.com/replab/replab/harness/testbed"
)

var shrinkTable = flag.Bool("shrinktable", false, "TestShrinkTable: shrink every planted bug's first failing seed in its hunter (Hunter; of the services -bugservices names) and write the table into docs/shrinking.md (minutes of CPU)")

// builder returns what builds seed of sc afresh, for a shrink.
func builder(sc Scenario, seed int64) shrink.Builder {
	return func() (testbed.Run, error) { return sc.Build(seed, "", nil) }
}

// replayed carries out seed of sc with edits made, as a shrunk run file
// replays it.
func replayed(t *testing.T, sc Scenario, seed int64, res *shrink.Result) *testbed.Record {
	r, err := sc.Build(seed, "", nil)
	require.NoError(t, err)
	r, err = shrink.Apply(r, res.Edits)
	require.NoError(t, err)
	rec, err := shrink.Execute(r)
	require.NoError(t, err)
	return rec
}

// TestShrinkPlantedBug shrinks kv-linearizability seed 1 with rsm's
// de-duplication left out (a retried write applies twice): the shrunk
// run fails with the same kind of violation, is smaller in every
// dimension, replays to the same trace, and is the same whatever the
// parallelism; the seed without the bug passes and is refused.
func TestShrinkPlantedBug(t *testing.T) {
	t.Parallel()
	sc, err := Lookup("kv-linearizability")
	require.NoError(t, err)
	bugged, err := Planted(sc, Bug{"rsm", "no de-duplication: a retried write applies twice"})
	require.NoError(t, err)
	res, err := shrink.Shrink(builder(bugged, 1), shrink.Options{})
	require.NoError(t, err)
	t.Logf("%v → %v (%s, %d runs)", res.Original, res.Shrunk, res.Kind, res.Runs)
	assert.Equal(t, "linearizability", res.Kind)
	assert.Equal(t, res.Kind, res.Record.Kind)
	assert.False(t, res.Reactive, "the random nemesis replays as a schedule")
	o, s := res.Original, res.Shrunk
	assert.Less(t, s.Faults, o.Faults)
	assert.Less(t, s.Ops, o.Ops)
	assert.Less(t, s.Length, o.Length)
	assert.Less(t, s.Servers, o.Servers)
	assert.Less(t, s.Clients, o.Clients)
	again := replayed(t, bugged, 1, res)
	assert.Equal(t, res.Record.Summary, again.Summary, "the edits replay the shrunk run exactly")
	one, err := shrink.Shrink(builder(bugged, 1), shrink.Options{Parallel: 1})
	require.NoError(t, err)
	assert.Equal(t, res.Edits, one.Edits, "one candidate at a time, the same result")

	_, err = shrink.Shrink(builder(sc, 1), shrink.Options{})
	assert.EqualError(t, err, "kv-linearizability seed 1 passes: there is no failure to shrink")
}

// TestShrinkTable, with -shrinktable, shrinks each planted bug of the
// services -bugservices names in its hunter (Hunter), from the first
// failing seed of 1–20, checks that the shrunk run fails with the same
// kind, replays to the same trace and is no bigger (and smaller in
// something), and writes the table, with each shrink's wall time, into
// docs/shrinking.md between its markers.
func TestShrinkTable(t *testing.T) {
	if !*shrinkTable {
		t.Skip("run with -shrinktable")
	}
	var rows strings.Builder
	rows.WriteString("| bug | scenario, first failing seed | kind | faults | operations | virtual length | servers | clients | runs | wall time |\n|---|---|---|---|---|---|---|---|---|---|\n")
	var walls []time.Duration
	for _, service := range strings.Split(*bugServices, ",") {
		for _, b := range Bugs() {
			if b.Service != service {
				continue
			}
			sc := catcher(t, b)
			name := hunters[b.String()]
			o, failed := FirstFailure(sc, 20, 1)
			require.True(t, failed, "%s did not find %v in 20 seeds", name, b)
			if sc.Build == nil {
				fmt.Fprintf(&rows, "| %s: %s | %s %d | not shrunk: its seeds are not testbed runs |||||||\n", b.Service, b.Name, name, o.Seed)
				continue
			}
			start := time.Now()
			res, err := shrink.Shrink(builder(sc, o.Seed), shrink.Options{})
			wall := time.Since(start)
			require.NoError(t, err, "%v", b)
			walls = append(walls, wall)
			t.Logf("%v: %s seed %d: %v → %v (%s, %d runs, %.1f s)", b, name, o.Seed, res.Original, res.Shrunk, res.Kind, res.Runs, wall.Seconds())
			assert.Equal(t, res.Kind, res.Record.Kind, "%v", b)
			again := replayed(t, sc, o.Seed, res)
			assert.Equal(t, res.Record.Summary, again.Summary, "%v: the shrunk run replays", b)
			assert.Equal(t, res.Record.Problem, again.Problem, "%v: the shrunk run replays", b)
			or, sh := res.Original, res.Shrunk
			assert.True(t, sh.Faults <= or.Faults && sh.Length <= or.Length && sh.Servers <= or.Servers && sh.Clients <= or.Clients, "%v: no bigger", b)
			assert.NotEqual(t, or, sh, "%v: smaller in something", b)
			arrow := func(a, b any) string {
				if a == b {
					return fmt.Sprint(a)
				}
				return fmt.Sprintf("%v → %v", a, b)
			}
			clients := "–"
			if or.Clients > 0 {
				clients = arrow(or.Clients, sh.Clients)
			}
			faults, ops := arrow(or.Faults, sh.Faults), arrow(or.Ops, sh.Ops)
			switch {
			case or.Panicked:
				faults, ops = "? (a panic)", "?"
			case or.Ops == 0:
				ops = "– (not counted)"
			}
			fmt.Fprintf(&rows, "| %s: %s | %s %d | %s | %s | %s | %s | %s | %s | %d | %v |\n", b.Service, b.Name, name, o.Seed, res.Kind,
				faults, ops, arrow(or.Length, sh.Length), arrow(or.Servers, sh.Servers), clients, res.Runs, wall.Round(time.Millisecond))
		}
	}
	lo, hi := walls[0], walls[0]
	for _, w := range walls {
		lo, hi = min(lo, w), max(hi, w)
	}
	fmt.Fprintf(&rows, "\n%d bugs shrunk in %v to %v each (services: %s).\n", len(walls), lo.Round(time.Millisecond), hi.Round(time.Millisecond), *bugServices)
	t.Log("\n" + rows.String())
	path := filepath.Join("..", "..", "docs", "shrinking.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	const begin, end = "<!-- shrink table: go test ./harness/sweep -run TestShrinkTable -shrinktable -->\n", "<!-- end of shrink table -->\n"
	head, rest, ok := strings.Cut(string(doc), begin)
	require.True(t, ok, "%s has no %q", path, begin)
	_, tail, ok := strings.Cut(rest, end)
	require.True(t, ok, "%s has no %q", path, end)
	require.NoError(t, os.WriteFile(path, []byte(head+begin+rows.String()+end+tail), 0o644))
}
