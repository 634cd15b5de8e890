package sweep

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	bugTable    = flag.Bool("bugtable", false, "TestPlantedBugTable: run every planted bug's scenarios over seeds 1-20 and print the table of first failing seeds (minutes of CPU)")
	bugServices = flag.String("bugservices", "raft,rsm,shardtxn,logorder,frangipani", "TestPlantedBugTable: the services whose bugs the table hunts, comma-separated")
)

// tableScenarios are the scenarios the table tries for each service's
// bugs: the key/value and Raft scenarios for Raft's and rsm's, and each
// other service's own, under its default configuration (a bug of one of
// paper 003's options selects the option it breaks).
var tableScenarios = map[string][]string{
	"raft":       {"kv-linearizability", "kv-readindex", "kv-lease", "kv-lease-elections", "kv-lease-drift", "raft-figure8", "raft-votes", "swarm-kv", "swarm-raft"},
	"rsm":        {"kv-linearizability", "kv-readindex", "kv-lease", "kv-lease-elections", "kv-lease-drift", "swarm-kv"},
	"shardtxn":   {"txn-lists", "txn-bank", "txn-outages", "txn-leader-outages", "txn-crossing", "txn-cuts", "swarm-txn"},
	"logorder":   {"logorder-lists", "logorder-bank", "logorder-failover", "swarm-logorder"},
	"frangipani": {"locks-isolate", "locks-kills", "locks-drift", "locks-readers", "locks-duplicates", "swarm-locks"},
}

// catcher returns b's hunter (Hunter), with b planted.
func catcher(t *testing.T, b Bug) Scenario {
	t.Helper()
	sc, err := Hunter(b)
	require.NoError(t, err)
	sc, err = Planted(sc, b)
	require.NoError(t, err)
	return sc
}

// TestPlantedBugsFoundBySweeps plants each of Raft's and rsm's bugs in
// its hunter (Hunter) and runs it from seed 1 until a seed fails:
// each bug must be found within 20 seeds. The bugs are hunted in
// parallel, each one seed at a time, so that a hunt stops at its first
// failure. The other services' bugs are hunted by TestPlantedBugTable
// only (the suite's time is short), and by their packages' own hunts.
func TestPlantedBugsFoundBySweeps(t *testing.T) {
	t.Parallel()
	for _, b := range Bugs() {
		if b.Service != "raft" && b.Service != "rsm" {
			continue
		}
		t.Run(b.String(), func(t *testing.T) {
			t.Parallel()
			sc := catcher(t, b)
			o, failed := FirstFailure(sc, 20, 1)
			require.True(t, failed, "%s did not find %v in 20 seeds", sc.Name, b)
			t.Logf("%s seed %d: %s", sc.Name, o.Seed, firstLine(o.Problem))
		})
	}
}

// TestPlantedBugTable, with -bugtable, runs each planted bug in each of
// its service's table scenarios from seed 1 until a seed fails, up to seed
// 20 (50 in a swarm: huntSeeds), one seed at a time, and prints the first
// failing seeds as a Markdown table per service (docs/planted-bugs.md), with how many of
// seeds 1–20 fail in the bug's hunter (Hunter), and the wall time
// each service's table took. Every bug must be found by its catcher.
func TestPlantedBugTable(t *testing.T) {
	if !*bugTable {
		t.Skip("run with -bugtable")
	}
	seeds, err := Seeds(1, 20, 0, 1)
	require.NoError(t, err)
	var out strings.Builder
	for _, service := range strings.Split(*bugServices, ",") {
		start := time.Now()
		names, ok := tableScenarios[service]
		require.True(t, ok, "-bugservices: no service %q", service)
		fmt.Fprintf(&out, "\n| %s bug | %s | hunted by: seeds of 1–20 failing |\n|---|%s---|\n", service, strings.Join(names, " | "), strings.Repeat("---|", len(names)))
		for _, b := range Bugs() {
			if b.Service != service {
				continue
			}
			fmt.Fprintf(&out, "| %s |", b.Name)
			for _, name := range names {
				sc, err := Lookup(name)
				require.NoError(t, err)
				sc, err = Planted(sc, b)
				require.NoError(t, err)
				cell := "–"
				if o, failed := FirstFailure(sc, huntSeeds(name), 1); failed {
					cell = fmt.Sprint(o.Seed)
					t.Logf("%v: %s seed %d: %s", b, name, o.Seed, firstLine(o.Problem))
				}
				fmt.Fprintf(&out, " %s |", cell)
			}
			sc := catcher(t, b)
			failing := 0
			for _, o := range Run(sc, seeds, 1, "", nil) {
				if !o.OK() {
					failing++
				}
			}
			fmt.Fprintf(&out, " %s: %d |\n", sc.Name, failing)
			assert.Positive(t, failing, "%s did not find %v in 20 seeds", sc.Name, b)
		}
		fmt.Fprintf(&out, "\n(%s: %.0f s)\n", service, time.Since(start).Seconds())
	}
	t.Logf("first failing seed of 1-20, of 1-50 in a swarm (–: none):\n%s", out.String())
}

// huntSeeds is how many seeds the table hunts a bug with in scenario
// name: 20, or 50 in a swarm, which draws a configuration a seed and
// meets a bug's configuration less often.
func huntSeeds(name string) int64 {
	if strings.HasPrefix(name, "swarm-") {
		return 50
	}
	return 20
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func TestPlanted(t *testing.T) {
	kv, err := Lookup("kv-linearizability")
	require.NoError(t, err)
	_, err = Planted(kv, Bug{"rsm", "writes answered before they commit"})
	assert.NoError(t, err)
	_, err = Planted(kv, Bug{"raft", "votedFor not persisted"})
	assert.NoError(t, err)
	_, err = Planted(kv, Bug{"shardtxn", "decision sent before it is replicated"})
	assert.EqualError(t, err, `scenario kv-linearizability cannot plant "decision sent before it is replicated": it plants no bug of package shardtxn`)
	_, err = Planted(kv, Bug{"raft", "no such bug"})
	assert.Error(t, err)
	fake := Scenario{Name: "fake", Run: func(seed int64, _ string, _ io.Writer) Outcome { return Outcome{Seed: seed} }}
	_, err = Planted(fake, Bug{"raft", "votedFor not persisted"})
	assert.EqualError(t, err, `scenario fake cannot plant "votedFor not persisted": it plants no bug of package raft`)
	assert.Len(t, hunters, len(Bugs()), "hunters names every bug, and nothing else")
	for _, b := range Bugs() {
		catcher(t, b)
		n := 0
		for _, s := range Scenarios() {
			if _, err := Planted(s, b); err == nil {
				n++
			}
		}
		assert.Positive(t, n, "no scenario plants %v", b)
	}
}

func TestFirstFailure(t *testing.T) {
	var mu sync.Mutex
	ran := map[int64]int{}
	from3 := Scenario{Name: "from3", Run: func(seed int64, _ string, _ io.Writer) Outcome {
		mu.Lock()
		ran[seed]++
		mu.Unlock()
		if seed >= 3 {
			return Outcome{Seed: seed, Problem: "broken"}
		}
		return Outcome{Seed: seed}
	}}
	o, failed := FirstFailure(from3, 20, 1)
	assert.True(t, failed)
	assert.Equal(t, int64(3), o.Seed)
	assert.Equal(t, map[int64]int{1: 1, 2: 1, 3: 1}, ran, "it stops at the first failure")
	clear(ran)
	o, failed = FirstFailure(from3, 20, 2)
	assert.True(t, failed)
	assert.Equal(t, int64(3), o.Seed, "two at a time, the first failing seed is still 3")
	assert.Equal(t, map[int64]int{1: 1, 2: 1, 3: 1, 4: 1}, ran, "it stops after the batch with the first failure")
	_, failed = FirstFailure(from3, 2, 2)
	assert.False(t, failed)
}
