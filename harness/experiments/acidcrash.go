package experiments

import (
	"fmt"
	"strings"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn"
)

func acidCrashExperiment() Experiment {
	return Experiment{
		Name:        "txn-acid-crash",
		Reproduces:  "ACID distributed KV paper, Figs. 5, 6, 8 and 9",
		Description: "write latency of one client's transactions, one after another, with a non-leader crash, a shard-leader crash, 1 vs 3 transaction managers, a non-leader and a leader transaction-manager crash and the leader's restart, and the fraction that failed; paper 003's design, with paper 003's client (one try) and ours (retries under its Txid)",
		Seed:        1,
		Full:        "runs 2000 transactions in each scenario instead of 500",
		Run:         runAcidCrash,
	}
}

// An acidCrash is one scenario of txn-acid-crash: how many coordinators,
// which hosts to kill halfway through (none if kill is nil), and whether
// to restart them three quarters of the way through.
type acidCrash struct {
	name         string
	paper        string // what the paper reported for it
	coordinators int
	kill         func(e *txnEnv) []int
	restart      bool
}

// shardHosts returns the hosts of each shard's replica i, or of its leader
// if i is -1.
func shardHosts(e *txnEnv, i int) []int {
	var hosts []int
	for g := 1; g <= e.dep.Shards; g++ {
		r := i
		if l, ok := e.c.Leader(g); ok && i < 0 {
			r = l
		}
		if r >= 0 {
			hosts = append(hosts, e.c.HostOf(g, r))
		}
	}
	return hosts
}

// tmHost returns the host of the coordinator group's leader, or if
// follower of the replica after it.
func tmHost(follower bool) func(e *txnEnv) []int {
	return func(e *txnEnv) []int {
		l, ok := e.c.Leader(0)
		if !ok {
			return nil
		}
		if follower {
			l = (l + 1) % e.c.Replicas(0)
		}
		return []int{e.c.HostOf(0, l)}
	}
}

func acidCrashes() []acidCrash {
	// follower returns the host of a replica of shard 0 that does not lead.
	follower := func(e *txnEnv) []int {
		l, _ := e.c.Leader(1)
		return []int{e.c.HostOf(1, (l+1)%3)}
	}
	return []acidCrash{
		{name: "1 TM", paper: "18-22 ms (Figs. 5-7)", coordinators: 1},
		{name: "1 TM, non-leader crash", paper: "not impacted significantly (Fig. 5)", coordinators: 1, kill: follower},
		{name: "1 TM, one shard leader crash", paper: "9000 ms", coordinators: 1,
			kill: func(e *txnEnv) []int { return shardHosts(e, -1)[:1] }},
		{name: "1 TM, every shard leader crash", paper: "2 % of transactions took ~200 ms and failed (Fig. 6)", coordinators: 1,
			kill: func(e *txnEnv) []int { return shardHosts(e, -1) }},
		{name: "3 TMs", paper: "up to 30 ms (Fig. 8)", coordinators: 3},
		{name: "3 TMs, non-leader TM crash", paper: "did not impact the transactions", coordinators: 3, kill: tmHost(true)},
		{name: "3 TMs, TM-leader crash", paper: "about 30 % of 2000 transactions failed (Fig. 9)", coordinators: 3, kill: tmHost(false)},
		{name: "3 TMs, TM-leader crash and restart", paper: "bringing up the crashed leader did not impact the transactions", coordinators: 3,
			kill: tmHost(false), restart: true},
	}
}

// acidCrashTxns is how many transactions each scenario runs: the paper's
// 500 (2000 with -full, as its transaction-manager crash ran).
func acidCrashTxns(full bool) int {
	if full {
		return 2000
	}
	return 500
}

// An acidClient is a client of txn-acid-crash: ours, which retries a
// transaction under its Txid until it hears the decision, or paper 003's,
// which does not (txntest.PaperClerk).
type acidClient struct {
	name  string
	paper bool
}

// acidClientModes returns the paper's client first, then ours.
func acidClientModes() []acidClient {
	return []acidClient{
		{name: "paper 003's client (one try per transaction)", paper: true},
		{name: "our client (retries under its Txid)"},
	}
}

// An acidCrashRun is what one scenario measured.
type acidCrashRun struct {
	load      *txnLoad
	start     time.Duration // when the client began, in virtual time
	killedAt  time.Duration // when the hosts were killed
	killed    []int         // the hosts killed
	names     []string      // and their names
	failed    int
	latencies plots.Stats
	// stalled is how long after the kill the first transaction to commit
	// after it ended (0 without a kill).
	stalled time.Duration
	// restartFailed and restartMax are the failures among, and the
	// slowest of, the transactions begun after a restart.
	restartFailed int
	restartMax    float64
}

// runCrashScenario runs one client's n write transactions of 3 random keys
// one after another on sc's deployment (3 shards, every replica on a host
// of its own), killing sc's hosts as transaction n/2 begins and, if
// sc.restart, restarting them as transaction 3n/4 begins. The client is
// paper 003's if paper, else ours.
func runCrashScenario(seed int64, sc acidCrash, n int, paper bool) (*acidCrashRun, error) {
	e, err := newAcidEnv(seed, 3, false, sc.coordinators, acidDesign())
	if err != nil {
		return nil, err
	}
	e.paperClients = paper
	r := &acidCrashRun{start: e.w.Now()}
	var faultErr error
	apply := func(kind fault.Kind, hosts []int) {
		for _, h := range hosts {
			if err := e.c.Apply(fault.Fault{Kind: kind, Host: h}); err != nil {
				faultErr = err
			}
		}
	}
	write := randomTxn(e, 3, acidKeys, true)
	r.load = e.start(1, func(ck *shardtxn.Clerk, client, seq int, done func(bool)) {
		if seq == n/2 && sc.kill != nil {
			// Kill once the transaction's prepares are on their way.
			e.w.After(2*time.Millisecond, func() {
				r.killed, r.killedAt = sc.kill(e), e.w.Now()
				for _, h := range r.killed {
					r.names = append(r.names, e.c.Hosts()[h].Name())
				}
				apply(fault.Kill, r.killed)
			})
		}
		if seq == 3*n/4 && sc.restart {
			e.w.After(2*time.Millisecond, func() { apply(fault.Restart, r.killed) })
		}
		write(ck, client, seq, done)
	})
	if !e.w.RunUntil(func() bool { return len(r.load.at) >= n || faultErr != nil }, 10*time.Minute) {
		return nil, fmt.Errorf("%s: %d of %d transactions ended in 10 minutes of virtual time", sc.name, len(r.load.at), n)
	}
	r.load.stopped = true
	if faultErr != nil {
		return nil, fmt.Errorf("%s: %w", sc.name, faultErr)
	}
	if sc.kill != nil && len(r.killed) == 0 {
		return nil, fmt.Errorf("%s: no host to kill", sc.name)
	}
	for k, ok := range r.load.committed {
		if !ok {
			r.failed++
		}
		if sc.restart && k >= 3*n/4-1 {
			if !ok {
				r.restartFailed++
			}
			r.restartMax = max(r.restartMax, float64(r.load.took[k])/float64(time.Millisecond))
		}
		if sc.kill != nil && ok && r.stalled == 0 && r.load.at[k] > r.killedAt {
			r.stalled = r.load.at[k] - r.killedAt
		}
	}
	r.latencies = plots.Summarize(millis(r.load.took))
	return r, nil
}

func runAcidCrash(p Params) (*Result, error) {
	scenarios, clients := acidCrashes(), acidClientModes()
	n := acidCrashTxns(p.Full)
	runs := make([]*acidCrashRun, len(clients)*len(scenarios)) // by client, then scenario
	err := parallel(len(runs), func(i int) error {
		r, err := runCrashScenario(p.Seed, scenarios[i%len(scenarios)], n, clients[i/len(scenarios)].paper)
		runs[i] = r
		return err
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("client", "scenario", "transactions", "failed", "failed_pct", "latency_mean_ms", "latency_p95_ms", "latency_max_ms",
		"hosts_killed", "first_commit_after_kill_ms", "after_restart_failed", "after_restart_max_ms", "paper")
	var figures []plots.Figure
	var notes []string
	for ci, cl := range clients {
		var charts []*plots.Chart
		for si, sc := range scenarios {
			r := runs[ci*len(scenarios)+si]
			restartFailed, restartMax := "-", "-"
			if sc.restart {
				restartFailed, restartMax = fmt.Sprint(r.restartFailed), fmt.Sprintf("%.1f", r.restartMax)
			}
			tab.Add(cl.name, sc.name, len(r.load.took), r.failed, r.failedPct(), r.latencies.Mean, r.latencies.P95, r.latencies.Max,
				len(r.killed), float64(r.stalled)/float64(time.Millisecond), restartFailed, restartMax, sc.paper)
			ch, err := crashChart(sc, r, n)
			if err != nil {
				return nil, err
			}
			charts = append(charts, ch)
			notes = append(notes, fmt.Sprintf("%s, %s: mean %.1f ms, p95 %.1f ms, max %.0f ms; %d of %d failed (paper: %s)",
				cl.name, sc.name, r.latencies.Mean, r.latencies.P95, r.latencies.Max, r.failed, len(r.load.took), sc.paper))
		}
		name := "txn-acid-crash"
		if cl.paper {
			name = "txn-acid-crash-paper-client"
		}
		figures = append(figures, plots.Figure{Name: name, Caption: crashCaption(cl, scenarios, runs[ci*len(scenarios):(ci+1)*len(scenarios)], runs, n), Charts: charts})
	}
	return &Result{Table: tab, Notes: notes, Figures: figures}, nil
}

// failedPct returns the share of the run's transactions that failed, in
// per cent.
func (r *acidCrashRun) failedPct() float64 {
	return 100 * float64(r.failed) / float64(len(r.load.took))
}

// crashChart draws one scenario's run: the latency of each transaction,
// the failed ones marked, the crash shaded.
func crashChart(sc acidCrash, r *acidCrashRun, n int) (*plots.Chart, error) {
	s := plots.Series{Name: "latency of each transaction"}
	failed := plots.Series{Name: "failed (its decision not heard)", Marks: true}
	for k, took := range r.load.took {
		x, y := float64(k+1), float64(took)/float64(time.Millisecond)
		s.X, s.Y = append(s.X, x), append(s.Y, y)
		if !r.load.committed[k] {
			failed.X, failed.Y = append(failed.X, x), append(failed.Y, y)
		}
	}
	series := []plots.Series{s}
	if len(failed.X) > 0 {
		series = append(series, failed)
	}
	// The chart's x counts transactions, so the crash is shaded from the
	// transaction it caught (TimeSeries reads x as seconds).
	var crash []fault.Interval
	if len(r.names) > 0 {
		end, label := n, strings.Join(r.names, ", ")+" killed"
		if sc.restart {
			end, label = 3*n/4, label+" (then restarted)"
		}
		crash = []fault.Interval{{Start: time.Duration(n/2) * time.Second, End: time.Duration(end) * time.Second, Label: label}}
	}
	return plots.TimeSeries(plots.Axes{Title: sc.name, X: "transaction, in the order the client ran them", Y: "latency (ms)"}, crash, series...)
}

// crashCaption is the caption of cl's figure: runs are cl's, by scenario;
// all are every client's, the paper's first.
func crashCaption(cl acidClient, scenarios []acidCrash, runs, all []*acidCrashRun, n int) string {
	setup := fmt.Sprintf("Latency of each of %d write transactions (3 Sets of random keys of %d) that one client runs one after another, "+
		"on paper 003's design (write intents, presumed commit, the replica manager) with 3 shards of 3 replicas and 1 or 3 transaction managers (TMs), every replica on a host of its own, "+
		"so that a crash can hit a follower, one shard's leader, every shard's leader at once (the paper's Fig. 6 killed a replica server leading all shards), a TM follower or the TM leader. "+
		"As transaction %d begins, the scenario kills those hosts (shaded), for good, or, in the last, until transaction %d begins. "+
		"The paper measured 18-22 ms per write with 1 TM and up to 30 ms with 3; a non-leader crash did not matter; killing a shard leader cost up to 9 s, "+
		"killing the TM leader failed about 30 %% of 2000 transactions, and crashing a TM follower or bringing the crashed leader back did not matter. ",
		n, acidKeys, n/2, 3*n/4)
	var mode string
	if cl.paper {
		mode = fmt.Sprintf("This is paper 003's client: it sends each transaction once, to the TM the replica manager names, and waits for the answer (up to %v, twice the TMs' transaction timeout: the paper's HTTP client had none); "+
			"a transaction whose decision it does not hear (the TM's host died under it, or the one it was sent to no longer leads) is failed, it never sends it again, and it goes on to the next. ",
			paperClientTimeout)
	} else {
		mode = "This is our client: it retries a transaction under its Txid until it hears the decision (at another TM, found through the replica manager), so a crash shows as one slow transaction, not a failed one. "
	}
	out := setup + mode + crashFailures(scenarios, runs) + ". "
	if cl.paper {
		out += paperClientFindings(scenarios, runs, all[len(scenarios):])
	}
	out += fmt.Sprintf("A third TM adds a replication round to each decision: the mean rises from %.1f to %.1f ms, as the paper's rose from 18-22 to 30. "+
		"A latency of a few milliseconds here stands for the paper's tens over HTTP between EC2 instances: a message takes %v-%v on our LAN, and no disk write is waited for.",
		runs[0].latencies.Mean, runs[4].latencies.Mean, network().Latency, network().Latency+network().Jitter) // acidCrashes: 1 TM first, 3 TMs fifth
	return out
}

// paperClientFindings says what paper 003's client shows, from its runs
// and ours (both by scenario): how many transactions a TM-leader crash
// fails and over how long, how long the directory would have to stay
// stale for the paper's count, and what the shard-leader crashes did.
func paperClientFindings(scenarios []acidCrash, paper, ours []*acidCrashRun) string {
	tm := slicesIndexName(scenarios, "3 TMs, TM-leader crash")
	one, every := slicesIndexName(scenarios, "1 TM, one shard leader crash"), slicesIndexName(scenarios, "1 TM, every shard leader crash")
	r := paper[tm]
	window := float64(r.stalled) / float64(time.Millisecond)
	pace := window / float64(max(r.failed, 1))
	const paperFailed = 600 // of 2000: the paper's Fig. 9
	return fmt.Sprintf("With this client a TM-leader crash fails every transaction sent in the %.0f ms until one commits again "+
		"(the TMs' election and the new leader's word to the replica manager; meanwhile each try goes to the dead leader the replica manager still names, and fails when the network gives up on it, within %v here): "+
		"%d of %d, %.1f %%, where our client lost none (its slowest took %.0f ms). "+
		"At that pace, one failure every %.0f ms, the paper's %d failures of 2000 would need its replica manager to name the dead leader for %.0f s: "+
		"the paper does not say how its replica manager learns of a new leader; ours is told at once. "+
		"Every shard leader crashing at once fails nothing with either client, where the paper's Fig. 6 lost 2 %%: our TM retries a prepare until the shard's new leader answers, and the client waits for the TM (%.0f ms here), "+
		"so the paper's failures there must have come from its TM (it does not say), not from its client. One shard leader's crash stalls the client %.0f ms, not the paper's 9 s: our TM finds the shard's new leader through the replica manager as soon as it is elected. ",
		window, noReply(), r.failed, len(r.load.took), r.failedPct(), ours[tm].latencies.Max,
		pace, paperFailed, paperFailed*pace/1000, paper[every].latencies.Max, paper[one].latencies.Max)
}

// slicesIndexName returns the index of the scenario called name; it
// panics if there is none (the scenarios are fixed).
func slicesIndexName(scenarios []acidCrash, name string) int {
	for i, sc := range scenarios {
		if sc.name == name {
			return i
		}
	}
	panic("txn-acid-crash: no scenario " + name)
}

// noReply is how long, at most, the experiments' network takes to fail a
// call that reaches no server.
func noReply() time.Duration { return network().NoReply }

// crashFailures says how many transactions failed in the crash scenarios
// and how slow the slowest was, and after a restart how many failed.
func crashFailures(scenarios []acidCrash, runs []*acidCrashRun) string {
	var out []string
	for i, sc := range scenarios {
		if sc.kill == nil {
			continue
		}
		r := runs[i]
		s := fmt.Sprintf("%s, %d of %d failed, the slowest took %.0f ms", sc.name, r.failed, len(r.load.took), r.latencies.Max)
		if sc.restart {
			s += fmt.Sprintf(" (after the restart %d failed, the slowest took %.0f ms)", r.restartFailed, r.restartMax)
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}
