package search

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
)

var searchDocs = flag.String("searchdocs", "", "regenerate docs/search.md's tables: all, or one of bugs, kvbugs, depths, walks, fig8, lease, txnbugs, locksbugs (minutes)")

// docsPath is docs/search.md, from this package's directory.
var docsPath = filepath.Join("..", "..", "docs", "search.md")

// The budgets of the bug table's searches.
const (
	tableBFSBudget  = 20_000
	tableWalkBudget = 100_000
	tableDepth      = 100
	kvTableDepth    = 150
)

// TestSearchDocs regenerates the tables of docs/search.md from runs (with
// -searchdocs): which planted bug each strategy finds in each scenario,
// beside the random sweeps' first failing seeds (read from the generated
// docs/planted-bugs.md), and the search's speed and state counts.
// Without the flag it checks that the page has its tables.
func TestSearchDocs(t *testing.T) {
	page, err := os.ReadFile(docsPath)
	require.NoError(t, err)
	if *searchDocs == "" {
		for _, name := range []string{"bugs", "kvbugs", "depths", "walks", "fig8", "lease", "txnbugs", "locksbugs"} {
			assert.Contains(t, string(page), "<!-- "+name+" -->", "docs/search.md has its %s table", name)
		}
		t.Skip("-searchdocs regenerates docs/search.md's tables")
	}
	sweeps, err := os.ReadFile(filepath.Join("..", "..", "docs", "planted-bugs.md"))
	require.NoError(t, err)
	text := string(page)
	tables := []struct {
		name string
		make func() string
	}{
		{"bugs", func() string { return bugTable(t, string(sweeps)) }},
		{"kvbugs", func() string { return kvBugTable(t) }},
		{"depths", func() string { return depthTable(t) }},
		{"walks", func() string { return walkTable(t) }},
		{"fig8", func() string { return figure8Table(t) }},
		{"lease", func() string { return leaseTable(t) }},
		{"txnbugs", func() string { return txnBugTable(t) }},
		{"locksbugs", func() string { return locksBugTable(t) }},
	}
	done := false
	for _, tb := range tables {
		if *searchDocs == "all" || *searchDocs == tb.name {
			text = replaceSection(t, text, tb.name, tb.make())
			done = true
		}
	}
	require.True(t, done, "-searchdocs %q: want all, bugs, kvbugs, depths, walks, fig8, lease, txnbugs or locksbugs", *searchDocs)
	require.NoError(t, os.WriteFile(docsPath, []byte(text), 0o644))
}

// replaceSection replaces what lies between <!-- name --> and <!-- /name -->.
func replaceSection(t *testing.T, text, name, body string) string {
	open, end := "<!-- "+name+" -->\n", "<!-- /"+name+" -->"
	i, j := strings.Index(text, open), strings.Index(text, end)
	require.True(t, i >= 0 && j > i, "docs/search.md has no section %s", name)
	return text[:i+len(open)] + body + text[j:]
}

// sweepColumns reads the raft table of docs/planted-bugs.md: for each
// bug, the cell of the column named col.
func sweepColumns(t *testing.T, doc, col string) map[string]string {
	cells := map[string]string{}
	var header []string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		fields := strings.Split(strings.Trim(line, "|"), "|")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		switch {
		case fields[0] == "raft bug":
			header = fields
		case header == nil || strings.HasPrefix(fields[0], "---"):
		default:
			for i, h := range header {
				if h == col && i < len(fields) {
					cells[fields[0]] = fields[i]
				}
			}
		}
	}
	require.NotEmpty(t, cells, "docs/planted-bugs.md has a raft table with a column %q", col)
	return cells
}

// bugTable searches each scenario with each strategy for each planted
// bug.
func bugTable(t *testing.T, sweeps string) string {
	swarm := sweepColumns(t, sweeps, "swarm-raft")
	hunted := sweepColumns(t, sweeps, "hunted by: seeds of 1–20 failing")
	var b strings.Builder
	b.WriteString("| raft bug |")
	type column struct {
		sc Scenario
		st Strategy
	}
	var cols []column
	for _, sc := range RaftScenarios() {
		for _, st := range []Strategy{BFS, DFS, PCT} {
			cols = append(cols, column{sc, st})
			fmt.Fprintf(&b, " %s %s |", sc.Name, st)
		}
	}
	b.WriteString(" swarm-raft: first failing seed | hunted by (sweep): seeds of 1–20 failing |\n|---|")
	b.WriteString(strings.Repeat("---|", len(cols)+2) + "\n")
	bugs := RaftScenarios()[0].Bugs
	found, byBFS := 0, 0
	for _, bug := range bugs {
		fmt.Fprintf(&b, "| %s |", bug)
		hit, bfs := false, false
		for _, c := range cols {
			budget := tableWalkBudget
			if c.st == BFS {
				budget = tableBFSBudget
			}
			res, err := Search(c.sc, Options{Strategy: c.st, Seed: 1, Depth: tableDepth, Budget: budget, Faults: -1, Drops: -1, Workers: 2, Bug: bug})
			require.NoError(t, err)
			cell := "–"
			if v := res.Violation; v != nil {
				cell = fmt.Sprintf("%d / %d", res.States, len(v.Path))
				hit, bfs = true, bfs || c.st == BFS
			}
			t.Logf("%s %s %s: %s (%v)", bug, c.sc.Name, c.st, cell, res.Wall)
			fmt.Fprintf(&b, " %s |", cell)
		}
		fmt.Fprintf(&b, " %s | %s |\n", orDash(swarm[bug]), orDash(hunted[bug]))
		if hit {
			found++
		}
		if bfs {
			byBFS++
		}
	}
	fmt.Fprintf(&b, "\nSome search finds %d of the %d bugs within these budgets, BFS %d.\n", found, len(bugs), byBFS)
	fmt.Fprintf(&b, "Each search cell is *states explored until the violation / steps of the schedule found*, or – if none was found within the budget: %d states for BFS, %d for the random walks (DFS, PCT), schedules of at most %d steps, seed 1, the scenario's budgets of faults and drops.\n",
		tableBFSBudget, tableWalkBudget, tableDepth)
	return b.String()
}

// kvBugTable searches the kv scenario with each strategy for each rsm bug
// it can show, and the correct service.
func kvBugTable(t *testing.T) string {
	return serviceBugTable(t, KVScenarios(), kvBugs, "rsm", "linearizability of the history so far")
}

// txnBugTable searches the transactions scenario with each strategy for
// each shardtxn bug it can show, and the correct service.
func txnBugTable(t *testing.T) string {
	return serviceBugTable(t, TxnScenarios(), txnBugs, "shardtxn", "lock safety and atomic decisions")
}

// locksBugTable searches the lock service's scenario with each strategy
// for each frangipani bug it can show, and the correct service.
func locksBugTable(t *testing.T) string {
	return serviceBugTable(t, LocksScenarios(), locksBugs, "frangipani", "lock safety under leases")
}

// serviceBugTable searches each of scs with each strategy for each of a
// service's bugs, and the correct service.
func serviceBugTable(t *testing.T, scs []Scenario, bugs []string, service, predicates string) string {
	var b strings.Builder
	strategies := []Strategy{BFS, DFS, PCT, Guided}
	fmt.Fprintf(&b, "| %s bug |", service)
	for _, sc := range scs {
		for _, st := range strategies {
			fmt.Fprintf(&b, " %s %s |", sc.Name, st)
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(scs)*len(strategies)) + "\n")
	found := 0
	for _, bug := range append([]string{""}, bugs...) {
		name := bug
		if bug == "" {
			name = "(none: the correct service)"
		}
		fmt.Fprintf(&b, "| %s |", name)
		hit := false
		for _, sc := range scs {
			for _, st := range strategies {
				budget := tableWalkBudget
				if st == BFS {
					budget = tableBFSBudget
				}
				res, err := Search(sc, Options{Strategy: st, Seed: 1, Depth: kvTableDepth, Budget: budget, Faults: -1, Drops: -1, Workers: 2, Bug: bug})
				require.NoError(t, err)
				cell := "–"
				if v := res.Violation; v != nil {
					cell = fmt.Sprintf("%d / %d", res.States, len(v.Path))
					if bug != "" {
						cell += " " + Kind(v.Err)
					}
					hit = true
				}
				t.Logf("%s %s %s: %s (%v)", name, sc.Name, st, cell, res.Wall)
				fmt.Fprintf(&b, " %s |", cell)
			}
		}
		b.WriteString("\n")
		if hit && bug != "" {
			found++
		}
	}
	fmt.Fprintf(&b, "\nSome search finds %d of these %d %s bugs within these budgets, by %s.\n", found, len(bugs), service, predicates)
	fmt.Fprintf(&b, "Each cell is *states explored until the violation / steps of the schedule found* (and the predicate broken), or – if none was found within the budget: %d states for BFS, %d for the random walks (DFS, PCT, guided), schedules of at most %d steps, seed 1, the scenario's budgets of faults and drops.\n",
		tableBFSBudget, tableWalkBudget, kvTableDepth)
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// depthTable runs BFS on raft-write to each depth, with and without
// state hashing, until a search takes longer than 20 s.
func depthTable(t *testing.T) string {
	sc := RaftScenarios()[0]
	var b strings.Builder
	b.WriteString("| depth | states (hashing) | distinct | wall | states/s | distinct/s | states (no hashing) | wall | states/s |\n|---|---|---|---|---|---|---|---|---|\n")
	hashing, plain := true, true
	for depth := 1; hashing || plain; depth++ {
		fmt.Fprintf(&b, "| %d |", depth)
		for _, nohash := range []bool{false, true} {
			on := &hashing
			if nohash {
				on = &plain
			}
			if !*on {
				b.WriteString(strings.Repeat(" – |", 3+b2i(!nohash)))
				continue
			}
			res, err := Search(sc, Options{Strategy: BFS, Seed: 1, Depth: depth, Faults: -1, Drops: -1, Workers: 2, NoHash: nohash})
			require.NoError(t, err)
			require.Nil(t, res.Violation)
			require.True(t, res.Complete)
			if nohash {
				fmt.Fprintf(&b, " %d | %v | %.0f |", res.States, res.Wall.Round(time.Millisecond), res.StatesPerSecond())
			} else {
				fmt.Fprintf(&b, " %d | %d | %v | %.0f | %.0f |", res.States, res.Distinct, res.Wall.Round(time.Millisecond), res.StatesPerSecond(),
					float64(res.Distinct)/max(res.Wall.Seconds(), 1e-9))
			}
			t.Logf("depth %d nohash %t: %d states %d distinct %v", depth, nohash, res.States, res.Distinct, res.Wall)
			if res.Wall > 20*time.Second {
				*on = false
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// walkTable runs random walks on raft-write to depths 20, 30 and 40, and
// counts the distinct states they reach.
func walkTable(t *testing.T) string {
	const budget = 200_000
	sc := RaftScenarios()[0]
	var b strings.Builder
	b.WriteString("| strategy | depth | states | distinct | distinct share | wall | states/s (hashing each) | states/s (no hashing) |\n|---|---|---|---|---|---|---|---|\n")
	for _, st := range []Strategy{DFS, PCT} {
		for _, depth := range []int{20, 30, 40} {
			o := Options{Strategy: st, Seed: 1, Depth: depth, Budget: budget, Faults: -1, Drops: -1, Workers: 2}
			res, err := Search(sc, o)
			require.NoError(t, err)
			require.Nil(t, res.Violation)
			o.NoHash = true
			fast, err := Search(sc, o)
			require.NoError(t, err)
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f %% | %v | %.0f | %.0f |\n", st, depth, res.States, res.Distinct,
				100*float64(res.Distinct)/float64(res.States), res.Wall.Round(time.Millisecond), res.StatesPerSecond(), fast.StatesPerSecond())
		}
	}
	fmt.Fprintf(&b, "\nEach row is random walks of raft-write (seed 1, no faults, no drops) until %d states, on 2 workers.\n", budget)
	return b.String()
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The budget of the Figure 8 searches.
const figure8Budget = 3_000_000

// figure8Table searches raft-choices-crash for the Figure 8 commit with
// guided walks, in order and not, and with DFS and PCT in order.
func figure8Table(t *testing.T) string {
	return strategyTable(t, "raft-choices-crash", "commit by counting replicas of an old-term entry", figure8Budget,
		[]strategyRow{{Guided, true}, {Guided, false}, {DFS, true}, {PCT, true}})
}

// leaseBudget is the lease table's budget of states a search.
const leaseBudget = 3_000_000

// leaseTable searches raft-choices-isolate for the pre-election bug with
// each strategy of the random walks, and guided walks in order.
func leaseTable(t *testing.T) string {
	return strategyTable(t, "raft-choices-isolate", preElection, leaseBudget,
		[]strategyRow{{PCT, false}, {DFS, false}, {Guided, false}, {Guided, true}})
}

// A strategyRow is one row of a strategyTable: a strategy, in the world's
// order or not.
type strategyRow struct {
	st      Strategy
	inOrder bool
}

// strategyTable searches the scenario called name for bug with each row's
// strategy, on 2 workers, within budget states, and tabulates what each
// found; every schedule found is replayed.
func strategyTable(t *testing.T, name, bug string, budget int, rows []strategyRow) string {
	sc := scenario(t, name)
	var b strings.Builder
	b.WriteString("| strategy | states until found | steps of the schedule | schedules | distinct states | wall | states/s | violation |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range rows {
		o := Options{Strategy: c.st, Seed: 1, Depth: tableDepth, Budget: budget, Faults: -1, Drops: -1, Workers: 2, InOrder: c.inOrder, Bug: bug}
		res, err := Search(sc, o)
		require.NoError(t, err)
		name := string(c.st)
		if c.inOrder {
			name += " -inorder"
		}
		found, steps, what := "–", "–", "none within the budget"
		if v := res.Violation; v != nil {
			found, steps, what = fmt.Sprint(res.States), fmt.Sprint(len(v.Path)), v.Err.Error()
			again, err := Replay(sc, o, v.Path)
			require.NoError(t, err)
			require.Equal(t, v.Summary, again.Summary, "the schedule replays")
			t.Logf("%s: %s", name, v.Path)
		}
		t.Logf("%s: %s / %s (%v)", name, found, steps, res.Wall)
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %v | %.0f | %s |\n", name, found, steps, res.Schedules, res.Distinct,
			res.Wall.Round(time.Second), res.StatesPerSecond(), what)
	}
	fmt.Fprintf(&b, "\nEach row searches %s (%s) with %q planted, seed 1, schedules of at most %d steps, with a budget of %d states, on 2 workers. A guided walk's states count the steps it replays from the corpus as well as its own.\n",
		sc.Name, sc.Doc, bug, tableDepth, budget)
	return b.String()
}
