package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/plots"
)

func frangipaniTablesExperiment() Experiment {
	return Experiment{
		Name:        "frangipani-tables",
		Reproduces:  "Frangipani report, its three tables (basic, speed and linearizable tests)",
		Description: "the report's basic, speed and linearizable tests on kvraft replicating on 10 ms heartbeats (the report's) or on Start, and on frangipani with locks only (the report's) and as it is here, beside the report's numbers",
		Seed:        1,
		Full:        "runs the basic test of the clients that cache for the report's 15 s instead of 1 s, and the linearizable test of frangipani without snapshots, as the report's",
		Run:         runFrangipaniTables,
	}
}

// A tablesScale is how much of the report's tests a run does.
type tablesScale struct {
	basic       time.Duration // the basic test's length on kvraft
	basicCached time.Duration // and on frangipani, a million operations a second
	appends     int           // the speed test's Appends
	seeds       int           // linearizable runs, from the seed on
	rounds      int           // each of rounds rounds of round
	round       time.Duration
	// cachedSnapshots has frangipani's servers snapshot in the
	// linearizable test, where the report's did not: without snapshots
	// each restart here decodes the lock service's whole log, and the
	// test costs several times the CPU.
	cachedSnapshots bool
}

// snapshots says whether s's servers snapshot in the linearizable test:
// as the report's did (kvSystem.snapshots), but for frangipani's under
// cachedSnapshots.
func (sc tablesScale) snapshots(s kvSystem) bool {
	return s.snapshots || (s.cached && sc.cachedSnapshots)
}

// tablesScaleFor is the report's scale: a basic test of 15 s (frangipani:
// 1 s, as the report cut it, unless full), 1000 Appends, and three rounds
// of 5 s of the linearizable test, five times from five seeds, frangipani
// snapshotting unless full.
func tablesScaleFor(full bool) tablesScale {
	sc := tablesScale{basic: 15 * time.Second, basicCached: time.Second, appends: 1000, seeds: 5, rounds: 3, round: 5 * time.Second, cachedSnapshots: true}
	if full {
		sc.basicCached, sc.cachedSnapshots = sc.basic, false
	}
	return sc
}

// The report's numbers, in its columns: its KV Raft, the "optimized"
// Raft that replicates on Start, the instructors' solution and its
// Frangipani; NaN where it gives none.
var (
	reportColumns = []string{"report_my_kv_raft", "report_optimized_raft", "report_instructors", "report_frangipani"}
	none          = math.NaN()
	reportBasic   = [3][4]float64{{47, 290, none, 16606}, {6776, 10176, 4576, 5594}, {308, 1765, 903, 100024}}
	reportSpeed   = [3][4]float64{{14630.144, 7408.958, none, 3.908}, {15.2, 7.7, 15.7, 0.8}, {6308, 3467, 3022, 9404}}
	reportLinear  = [3][4]float64{{15, 30, none, 3}, {15877, 25075, 8378, 25953}, {1057, 2033, 681, 277}}
	// reportBasicFor is how long the report's basic test ran its KV Rafts:
	// three iterations of 5 s.
	reportBasicFor = 15 * time.Second
)

// tablesRun is what the tests measured of one system.
type tablesRun struct {
	basic, speed load
	linear       []linOutcome // one per seed
}

func runFrangipaniTables(p Params) (*Result, error) {
	return frangipaniTables(p.Seed, tablesScaleFor(p.Full))
}

func frangipaniTables(seed int64, sc tablesScale) (*Result, error) {
	systems := frangipaniSystems()
	runs := make([]tablesRun, len(systems))
	for i := range runs {
		runs[i].linear = make([]linOutcome, sc.seeds)
	}
	perSystem := 2 + sc.seeds
	err := parallel(len(systems)*perSystem, func(i int) error {
		s, r, k := systems[i/perSystem], &runs[i/perSystem], i%perSystem
		var err error
		switch k {
		case 0:
			d := sc.basic
			if s.cached {
				d = sc.basicCached
			}
			r.basic, err = s.basic(seed, 5, d)
		case 1:
			r.speed, err = s.speed(seed, 3, sc.appends)
		default:
			r.linear[k-2], err = s.linearizable(seed+int64(k-2), sc.rounds, sc.round, sc.snapshots(s))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return tablesResult(systems, runs, sc)
}

// A tableRow is one line of the report's tables: ours by system, then the
// report's.
type tableRow struct {
	test, metric string
	ours         []float64
	report       [4]float64
}

func tablesResult(systems []kvSystem, runs []tablesRun, sc tablesScale) (*Result, error) {
	row := func(test, metric string, report [4]float64, f func(r tablesRun) float64) tableRow {
		tr := tableRow{test: test, metric: metric, report: report}
		for _, r := range runs {
			tr.ours = append(tr.ours, f(r))
		}
		return tr
	}
	onStart := 1 // kvraft replicating on Start, which the goals compare with
	// seeds combines f of each linearizable run (the k-th seed's).
	seeds := func(combine func([]float64) float64, f func(k int, o linOutcome) float64) func(r tablesRun) float64 {
		return func(r tablesRun) float64 {
			var vs []float64
			for k, o := range r.linear {
				vs = append(vs, f(k, o))
			}
			return combine(vs)
		}
	}
	mean := func(vs []float64) float64 { return plots.Summarize(vs).Mean }
	perClient := func(_ int, o linOutcome) float64 { return o.perClient() }
	// Every system met the same partitions at the same times from a seed.
	vsStart := func(k int, o linOutcome) float64 { return o.perClient() / runs[onStart].linear[k].perClient() }
	noReport := [4]float64{none, none, none, none}
	rows := []tableRow{
		row("basic", "ops_per_s", reportBasic[0], func(r tablesRun) float64 { return r.basic.perSecond() }),
		row("basic", "rpcs", reportBasic[1], func(r tablesRun) float64 { return float64(r.basic.rpcs) }),
		row("basic", "ops", reportBasic[2], func(r tablesRun) float64 { return float64(r.basic.ops) }),
		row("basic", "seconds", [4]float64{15, 15, 15, 3}, func(r tablesRun) float64 { return r.basic.took.Seconds() }),
		row("speed", "us_per_op", reportSpeed[0], func(r tablesRun) float64 { return microsPerOp(r.speed) }),
		row("speed", "seconds", reportSpeed[1], func(r tablesRun) float64 { return r.speed.took.Seconds() }),
		row("speed", "rpcs", reportSpeed[2], func(r tablesRun) float64 { return float64(r.speed.rpcs) }),
		row("linearizable", "ops_per_s_per_client", reportLinear[0], seeds(mean, perClient)),
		row("linearizable", "ops_per_s_per_client_min", noReport, seeds(slices.Min, perClient)),
		row("linearizable", "ops_per_s_per_client_max", noReport, seeds(slices.Max, perClient)),
		row("linearizable", "rpcs", reportLinear[1], seeds(mean, func(_ int, o linOutcome) float64 { return float64(o.rpcs) })),
		row("linearizable", "ops", reportLinear[2], seeds(mean, func(_ int, o linOutcome) float64 { return float64(o.ops) })),
	}
	for _, test := range []struct {
		name   string
		at     int
		report [4]float64
	}{{"basic", 0, reportBasic[0]}, {"linearizable", 7, reportLinear[0]}} {
		base, rep := rows[test.at].ours[onStart], test.report[onStart]
		ratio := tableRow{test: test.name, metric: "ops_per_s_vs_kvraft_on_start"}
		for _, v := range rows[test.at].ours {
			ratio.ours = append(ratio.ours, v/base)
		}
		for i, v := range test.report {
			ratio.report[i] = v / rep
		}
		rows = append(rows, ratio)
	}
	rows = append(rows,
		row("linearizable", "ops_per_s_vs_kvraft_on_start_min", noReport, seeds(slices.Min, vsStart)),
		row("linearizable", "ops_per_s_vs_kvraft_on_start_max", noReport, seeds(slices.Max, vsStart)))

	columns := []string{"test", "metric"}
	for _, s := range systems {
		columns = append(columns, columnName(s.name))
	}
	tab := plots.NewTable(append(columns, reportColumns...)...)
	for _, r := range rows {
		cells := []any{r.test, r.metric}
		for _, v := range r.ours {
			cells = append(cells, v)
		}
		for _, v := range r.report {
			cells = append(cells, cell(v))
		}
		tab.Add(cells...)
	}
	verdict := []any{"linearizable", "porcupine"}
	for _, r := range runs {
		verdict = append(verdict, fmt.Sprintf("linearizable in %d of %d", len(r.linear), len(r.linear)))
	}
	tab.Add(append(verdict, "passed", "passed", "passed", "passed")...)

	var notes []string
	for _, r := range rows {
		var ours, report []string
		for _, v := range r.ours {
			ours = append(ours, fmt.Sprintf("%.4g", v))
		}
		for _, v := range r.report {
			report = append(report, fmt.Sprintf("%.4g", v))
		}
		notes = append(notes, fmt.Sprintf("%s %s: ours %s; the report's %s", r.test, r.metric, strings.Join(ours, " | "), strings.ReplaceAll(strings.Join(report, " | "), "NaN", "/")))
	}
	figure, err := tablesFigure(systems, rows, sc)
	if err != nil {
		return nil, err
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{figure}}, nil
}

// snapshotsSaid says which systems snapshot in the linearizable test,
// and how that compares with the report, which ran its KV Raft in the
// lab's 3B test ("snapshots") and its Optimized Raft and Frangipani in
// the 3A test, without.
func snapshotsSaid(sc tablesScale) string {
	said := fmt.Sprintf("In the linearizable test, as in the report, kvraft on %v heartbeats snapshots (at %d KB of Raft state; the report ran its KV Raft in the lab's 3B test, \"snapshots\") "+
		"and kvraft on Start does not (its Optimized Raft ran the 3A test, without); ", kvHeartbeat.heartbeat, linMaxRaftState>>10)
	if sc.snapshots(frangipaniLock) && sc.snapshots(frangipaniKV) {
		return said + "both frangipani snapshot here where the report's Frangipani, in the 3A test, did not: without snapshots every restart here decodes the lock service's whole log, entry by entry, " +
			"which costs several times the CPU (`-full` runs them without)."
	}
	return said + "neither frangipani does, as the report's Frangipani, in the 3A test, did not."
}

// microsPerOp returns a load's virtual microseconds per operation.
func microsPerOp(l load) float64 { return float64(l.took) / float64(time.Microsecond) / float64(l.ops) }

// columnName makes a system's name a CSV column's.
func columnName(name string) string {
	r := strings.NewReplacer(", replicating", "", ", ", "_", " ", "_")
	return r.Replace(name)
}

// cell is a report's number for the CSV, empty where it gives none.
func cell(v float64) any {
	if math.IsNaN(v) {
		return ""
	}
	return v
}

// tablesFigure draws the three tables' headline numbers as bars, ours
// beside the report's, like with like: kvraft replicating on 10 ms
// heartbeats (the report's KV Raft), kvraft replicating on Start (its optimized Raft),
// frangipani with locks only (its Frangipani), and frangipani as it is
// here, which the report has no column for.
func tablesFigure(systems []kvSystem, rows []tableRow, sc tablesScale) (plots.Figure, error) {
	groups := []string{fmt.Sprintf("kvraft on\n%v heartbeats", kvHeartbeat.heartbeat), "kvraft\non Start", "frangipani,\nlocks only", "frangipani\nas it is here"}
	reportCol := []int{0, 1, 3, -1} // the report's column of each group's system; -1: none
	if len(systems) != len(groups) {
		return plots.Figure{}, fmt.Errorf("frangipani-tables: %d systems for %d groups", len(systems), len(groups))
	}
	at := func(test, metric string) tableRow {
		i := slices.IndexFunc(rows, func(r tableRow) bool { return r.test == test && r.metric == metric })
		if i < 0 {
			panic(fmt.Sprintf("frangipani-tables: no row %s %s", test, metric)) // tablesResult makes them all
		}
		return rows[i]
	}
	var charts []*plots.Chart
	for _, c := range []struct {
		row  tableRow
		axes plots.Axes
	}{
		{at("basic", "ops_per_s"), plots.Axes{Title: "Basic test: one client on one key", Y: "operations per second (log)", LogY: true}},
		{at("speed", "us_per_op"), plots.Axes{Title: "Speed test: 1000 Appends one after another", Y: "µs per Append (log)", LogY: true}},
		{at("linearizable", "ops_per_s_per_client"), plots.Axes{Title: fmt.Sprintf("Linearizable test: 15 clients under faults (here: mean of %d seeds)", sc.seeds), Y: "operations per second per client"}},
	} {
		here := plots.Samples{Name: "here (virtual time)"}
		report := plots.Samples{Name: "the report (wall time, its machine)"}
		for i := range groups {
			here.Values = append(here.Values, c.row.ours[i])
			v := math.NaN()
			if reportCol[i] >= 0 {
				v = c.row.report[reportCol[i]]
			}
			report.Values = append(report.Values, v)
		}
		ch, err := plots.Bars(c.axes, groups, here, report)
		if err != nil {
			return plots.Figure{}, err
		}
		charts = append(charts, ch)
	}
	const beats, start, locks, ours = 0, 1, 2, 3 // of the systems
	basicRate := at("basic", "ops_per_s")
	lin, vs := at("linearizable", "ops_per_s_per_client"), at("linearizable", "ops_per_s_vs_kvraft_on_start")
	vsMin, vsMax := at("linearizable", "ops_per_s_vs_kvraft_on_start_min"), at("linearizable", "ops_per_s_vs_kvraft_on_start_max")
	// One client keeps its lock: locks only or not, frangipani is the same.
	apart := 0.0
	for _, r := range []tableRow{at("basic", "ops_per_s"), at("speed", "us_per_op")} {
		apart = max(apart, math.Abs(r.ours[locks]/r.ours[ours]-1))
	}
	caption := fmt.Sprintf("The Frangipani report's three tests, run here in virtual time, beside the report's own numbers, like with like: "+
		"kvraft replicating on heartbeats every %v, each carrying what arrived since (the report's \"My KV Raft\", its \"one potential amendment\" of a Raft on 100 ms heartbeats: "+
		"its speed test's %.1f ms per Append passed the lab's %.1f ms bar, which one Append per 100 ms heartbeat cannot, and its %.0f RPCs in the basic test's %g s on 5 servers are about the %.0f heartbeats "+
		"a leader sends to 4 followers every %v, plus one call per operation, %.0f), kvraft replicating on Start (its \"Optimized Raft\"), "+
		"frangipani taking a key's lock for every operation (locks only, as the report's Frangipani does), "+
		"and frangipani as it is here, which performs at the lock service the operations of a key that moves from client to client; the report has no such design, hence \"none\". "+
		"Basic: one client, one key, Gets, Puts and Appends back to back, 5 servers, reliable network, for %v (frangipani: %v, as the report cut it; `-full`: %v). "+
		"Speed: %d Appends one after another, 3 servers. "+
		"With one client the two frangipani bars are within %.2g %% of each other: a lone client keeps its lock and serves from its cache either way. "+
		"Linearizable: 15 clients on 7 servers, each operation on one of 15 keys at random (the lab's mix: 45%% Gets, 5%% Puts, 50%% Appends), unreliable network, "+
		"the servers split in two at random every 1–1.2 s, %d rounds of %v each ended by crashing and restarting every server, "+
		"the same partitions at the same times for every system, %d seeds; porcupine found every history linearizable (an unknown verdict would fail the run). "+
		"%s "+
		"Replicating on Start does %.1f times as many operations as on %v heartbeats in the basic test (the report: %.1f times) and %.2f times as many in the linearizable test (the report: %.1f times): "+
		"a client's operation takes %.0f ms on average there (on %v heartbeats), of which the wait for the next heartbeat is at most %v. "+
		"Locks only makes %.2f operations per second per client there, %.2f times kvraft on Start (%.2f); the report's Frangipani made %g, %.2g times its Raft on Start (%g). "+
		"Frangipani as it is here makes %.2f, %.2f times kvraft on Start (%.2f–%.2f times per seed). "+
		"The report's operations per second of that test do not follow from its totals (%.0f operations by 15 clients over 15 s is %.1f a second per client; its logs print a client's count of one second): "+
		"its totals are closer to ours. "+
		"The value axes of the first two charts are logarithmic. The CSV has every number of the three tables, ours and the report's.",
		kvHeartbeat.heartbeat, reportSpeed[0][0]/1000, labSpeedBar, reportBasic[1][0], reportBasicFor.Seconds(), float64(4*reportBasicFor/kvHeartbeat.heartbeat), kvHeartbeat.heartbeat, reportBasic[2][0],
		sc.basic, sc.basicCached, sc.basic, sc.appends, 100*apart, sc.rounds, sc.round, sc.seeds, snapshotsSaid(sc),
		basicRate.ours[start]/basicRate.ours[beats], kvHeartbeat.heartbeat, basicRate.report[start]/basicRate.report[beats], lin.ours[start]/lin.ours[beats], lin.report[start]/lin.report[beats],
		1000/lin.ours[beats], kvHeartbeat.heartbeat, kvHeartbeat.heartbeat,
		lin.ours[locks], vs.ours[locks], lin.ours[start], lin.report[3], vs.report[3], lin.report[start],
		lin.ours[ours], vs.ours[ours], vsMin.ours[ours], vsMax.ours[ours],
		reportLinear[2][0], reportLinear[2][0]/15/15)
	return plots.Figure{Name: "frangipani-tables", Caption: caption, Charts: charts}, nil
}
