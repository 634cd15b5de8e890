package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn"
)

func headToHeadExperiment() Experiment {
	return Experiment{
		Name:        "txn-vs-logorder",
		Reproduces:  "none of the papers: 2PC/2PL (papers 000 and 003) against log ordering (paper 004)",
		Description: "throughput and p99 latency of paper 004's bank transactions against contention (30 000 accounts down to 10), every shardtxn variant and logorder on three hosts, with and without the leader's host killed",
		Seed:        1,
		Run:         runHeadToHead,
	}
}

// headToHeadDesigns are the designs the head-to-head compares, each on
// three hosts tolerating one host's loss: shardtxn's four variants (two
// shards and a coordinator, every host a replica of each) and logorder
// (three nodes, every key on two).
func headToHeadDesigns() []bankDesign {
	return []bankDesign{
		twoPC("2PC/2PL: lock waits, presumed abort", shardtxn.LockWaits, shardtxn.PresumedAbort),
		twoPC("2PC: write intents", shardtxn.WriteIntents, shardtxn.PresumedAbort),
		twoPC("2PC/2PL: presumed commit", shardtxn.LockWaits, shardtxn.PresumedCommit),
		twoPC("2PC: paper 003's acid (intents, presumed commit)", shardtxn.WriteIntents, shardtxn.PresumedCommit),
		logOrdered("log-ordered (paper 004), 2-way", 3, 2, 10000),
	}
}

// headToHeadWorkers is how many clients the head-to-head runs.
const headToHeadWorkers = 10

// A headToHeadPlan is how long each head-to-head point measures, and when
// in it the leader's host is killed.
type headToHeadPlan struct{ window, killAt time.Duration }

// h2hPlan is 5 s with the kill at 1 s with -full, else 1 s with the kill
// at 0.25 s (40 points).
func h2hPlan(full bool) headToHeadPlan {
	if full {
		return headToHeadPlan{5 * time.Second, time.Second}
	}
	return headToHeadPlan{time.Second, time.Second / 4}
}

// headToHeadPoint runs design d's bank clients over accounts for the
// plan's window, killing the leader's host at killAt if kill, and returns
// the committed transactions per second and their p99 latency in ms.
func headToHeadPoint(seed int64, d bankDesign, accounts int, kill bool, plan headToHeadPlan) (rate, p99 float64, err error) {
	e, err := d.deploy(seed)
	if err != nil {
		return 0, 0, err
	}
	l := e.start(headToHeadWorkers, accounts)
	if kill {
		e.w.Run(plan.killAt)
		if _, err := e.killLeader(); err != nil {
			return 0, 0, err
		}
		e.w.Run(plan.window - plan.killAt)
	} else {
		e.w.Run(plan.window)
	}
	l.stop()
	_, _, p99 = percentiles(l.took)
	return float64(len(l.at)) / plan.window.Seconds(), p99, nil
}

func runHeadToHead(p Params) (*Result, error) {
	designs := headToHeadDesigns()
	accounts := []int{30000, 1000, 100, 10}
	plan := h2hPlan(p.Full)
	type point struct{ rate, p99 float64 }
	per := 2 * len(accounts)
	points := make([]point, len(designs)*per)
	err := parallel(len(points), func(i int) error {
		d, a, kill := designs[i/per], accounts[i%per/2], i%2 == 1
		rate, p99, err := headToHeadPoint(p.Seed, d, a, kill, plan)
		points[i] = point{rate, p99}
		return err
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("design", "accounts", "leader_killed", "txns_per_s", "p99_ms")
	var charts []*plots.Chart
	var notes []string
	for _, kill := range []bool{false, true} {
		var rates, tails []plots.Band
		for di, d := range designs {
			rate, tail := plots.Band{Name: d.Name}, plots.Band{Name: d.Name}
			for ai, a := range accounts {
				pt := points[di*per+2*ai+map[bool]int{false: 0, true: 1}[kill]]
				tab.Add(d.Name, a, kill, pt.rate, pt.p99)
				rate.X, rate.Mid = append(rate.X, float64(a)), append(rate.Mid, pt.rate)
				tail.X, tail.Mid = append(tail.X, float64(a)), append(tail.Mid, pt.p99)
			}
			rates, tails = append(rates, rate), append(tails, tail)
			notes = append(notes, fmt.Sprintf("%s%s: %.0f txns/s over 30 000 accounts (p99 %.0f ms), %.0f over 10 (p99 %.0f ms)", d.Name, map[bool]string{false: "", true: ", leader killed"}[kill],
				rate.Mid[0], tail.Mid[0], rate.Mid[len(accounts)-1], tail.Mid[len(accounts)-1]))
		}
		when := "no fault"
		if kill {
			when = fmt.Sprintf("the leader's host killed at %v", plan.killAt)
		}
		rch, err := plots.Lines(plots.Axes{Title: "Throughput, " + when, X: "accounts (log scale; fewer is more contention)", Y: "committed per second (log)", LogX: true, LogY: true}, rates...)
		if err != nil {
			return nil, err
		}
		tch, err := plots.Lines(plots.Axes{Title: "p99 latency, " + when, X: "accounts (log scale; fewer is more contention)", Y: "ms (log scale)", LogX: true, LogY: true}, tails...)
		if err != nil {
			return nil, err
		}
		charts = append(charts, rch, tch)
	}
	caption := fmt.Sprintf("The head-to-head none of the papers has: %d clients each running paper 004's bank transaction (5 moves over 10 distinct accounts, 1 KB rows) one after another for %v, "+
		"against the number of accounts, on three hosts that each tolerate losing one: shardtxn (a coordinator group and two shard groups, every host a replica of each; a transaction reads its 10 accounts "+
		"in a read-only 2PC transaction, then sets them conditionally in a second, again on an abort) in paper 000's variant and paper 003's options, "+
		"and logorder (one log over the three nodes, every key on two; a transaction reads at a snapshot and commits through the log, begun again on a conflict). "+
		"Latency counts every retry until the transaction commits; a transaction still unfinished when the window ends is not counted, so a p99 cannot exceed the window. In the lower pair the host of the coordinators' (2PC) or the log's leader is killed at %v and not restarted.",
		headToHeadWorkers, plan.window, plan.killAt)
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "txn-vs-logorder", Caption: caption, Charts: charts}}}, nil
}
