package experiments

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

// electionCap is how long an experiment waits for an election before it
// records the cap and moves on.
const electionCap = 2 * time.Minute

// awaitLeader runs the world until a live server leads with a majority
// behind it, and returns how long that took (the cap if it never did).
func (e *env) awaitLeader() (time.Duration, bool) {
	start := e.w.Now()
	ok := e.w.RunUntil(func() bool { _, ok := e.leader(); return ok }, electionCap)
	return e.w.Now() - start, ok
}

func timeoutRangeExperiment() Experiment {
	return Experiment{
		Name:        "timeout-range",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 8",
		Description: "time to the first Put after every server was isolated, against the election timeout range 500-500...600 ms, 31 servers, on a LAN and on a slow network",
		Seed:        1,
		Run:         runTimeoutRange,
	}
}

// networks are the two networks the election experiments compare: the
// LAN, where collecting votes takes a fraction of a millisecond, and a slow
// one, where it takes tens of milliseconds, as it did for the paper.
func networks() []struct {
	name string
	p    labrpc.Params
} {
	slow := network()
	slow.Latency, slow.Jitter = 15*time.Millisecond, 5*time.Millisecond
	return []struct {
		name string
		p    labrpc.Params
	}{{"LAN (0.25 ms)", network()}, {"slow network (15 ms)", slow}}
}

func runTimeoutRange(p Params) (*Result, error) {
	const servers, trials = 31, 20
	const firstPutCap = 30 * time.Second
	highs := []int{500, 525, 550, 575, 600}
	tab := plots.NewTable("network", "election_max_ms", "trial", "first_put_s", "completed")
	var bands []plots.Band
	var notes []string
	for _, nw := range networks() {
		b := plots.Band{Name: nw.name}
		for _, hi := range highs {
			rc := raft.PaperConfig()
			rc.ElectionMax = time.Duration(hi) * time.Millisecond
			e, err := newEnv(p.Seed, servers, rc, nw.p)
			if err != nil {
				return nil, err
			}
			var times []float64
			stuck := 0
			for trial := range trials {
				// A fresh clerk each time: a Put that hit the cap is
				// still trying.
				ck := e.clerk()
				if err := e.m.Apply(chaos.IsolateAll(servers)); err != nil {
					return nil, err
				}
				e.w.Run(2 * time.Second) // every server times out, a leader steps down
				if err := e.m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
					return nil, err
				}
				took, ok := e.put(ck, "k", fmt.Sprint(trial), firstPutCap)
				if !ok {
					stuck++
				}
				tab.Add(nw.name, hi, trial, took, ok)
				times = append(times, took.Seconds())
			}
			st := plots.Summarize(times)
			b.X = append(b.X, float64(hi))
			b.Mid, b.Low, b.High = append(b.Mid, st.Mean), append(b.Low, st.P5), append(b.High, st.P95)
			notes = append(notes, fmt.Sprintf("%s, 500-%d ms: mean %.2f s, p95 %.2f s, %d of %d trials hit the %v cap", nw.name, hi, st.Mean, st.P95, stuck, trials, firstPutCap))
		}
		bands = append(bands, b)
	}
	ch, err := plots.Lines(plots.Axes{Title: "Re-election after isolating all 31 servers", X: "election timeout upper bound (ms), lower bound 500 ms", Y: "seconds to the first Put (log scale)", LogY: true}, bands...)
	if err != nil {
		return nil, err
	}
	var ratios []float64 // the slow network's mean over the LAN's, width by width
	for i := range bands[0].Mid {
		ratios = append(ratios, bands[1].Mid[i]/bands[0].Mid[i])
	}
	caption := fmt.Sprintf("Time to the first Put after all %d servers were isolated and reconnected, against the width of the election timeout range: mean of %d trials, p5-p95 shaded "+
		"(a trial that elects no leader is recorded at the %v cap). The value axis is logarithmic: the slow network's mean is %.0f to %.0f times the LAN's.",
		servers, trials, firstPutCap, slices.Min(ratios), slices.Max(ratios))
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "timeout-range", Caption: caption, Charts: []*plots.Chart{ch}}}}, nil
}

func liveNodesExperiment() Experiment {
	return Experiment{
		Name:        "live-nodes",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 9",
		Description: "re-election time as leaders of 31 servers are killed one after another down to 16 live, with a killed server silent or still sending, our Raft and the paper's, and the paper's on a network as slow as its pigeonhole interval",
		Seed:        1,
		Run:         runLiveNodes,
	}
}

// A killing is a way of killing a server.
type killing struct {
	name string
	kill func(e *env, host int) error
}

// killings are the two readings of the paper's KILL: the server dies
// (nothing in, nothing out), or it only stops hearing (it drops what it
// receives, as the paper says, but runs on, and what it sends arrives).
func killings() []killing {
	return []killing{
		{"killed server silent", func(e *env, h int) error { return e.m.Apply(fault.Fault{Kind: fault.Kill, Host: h}) }},
		{"killed server still sends", deafen},
	}
}

// deafen cuts every link into host h: it hears nothing, but what it sends
// still arrives.
func deafen(e *env, h int) error {
	for j := range e.c.Replicas(0) {
		if j != h {
			if err := e.m.Apply(fault.Fault{Kind: fault.Cut, Host: j, To: h}); err != nil {
				return err
			}
		}
	}
	return nil
}

// paperRaft is the paper's Raft as far as the paper describes it: its
// timing, entries sent on the heartbeat, and neither PreVote, CheckQuorum
// nor a bound on the bytes of one AppendEntries, which it does not
// mention.
func paperRaft() raft.Config {
	rc := raft.PaperConfig()
	rc.HeartbeatOnly, rc.PreVote, rc.CheckQuorum, rc.MaxBatchBytes = true, false, false, 0
	return rc
}

func runLiveNodes(p Params) (*Result, error) {
	const servers, runs = 31, 40
	type variant struct {
		name string
		rc   raft.Config
		net  labrpc.Params
		k    killing
	}
	lan, slow := networks()[0], networks()[1]
	silent, sends := killings()[0], killings()[1]
	quorum := servers/2 + 1
	pigeon, pigeonNet := pigeonholeNetwork(paperRaft(), quorum)
	variants := []variant{
		{"ours, " + silent.name + ", " + lan.name, raft.PaperConfig(), lan.p, silent},
		{"ours, " + silent.name + ", " + slow.name, raft.PaperConfig(), slow.p, silent},
		{"ours, " + sends.name + ", " + lan.name, raft.PaperConfig(), lan.p, sends},
		{"the paper's, " + sends.name + ", " + lan.name, paperRaft(), lan.p, sends},
		{"the paper's, " + silent.name + ", " + fmt.Sprintf("votes arriving in %v", pigeon), paperRaft(), pigeonNet, silent},
	}
	tab := plots.NewTable("variant", "run", "live_servers", "election_s", "elected")
	times := make([]map[int][]float64, len(variants)*runs)
	err := parallel(len(times), func(i int) error {
		v, run := variants[i/runs], i%runs
		byLive := map[int][]float64{}
		times[i] = byLive
		e, err := newEnv(p.Seed*1000+int64(run), servers, v.rc, v.net)
		if err != nil {
			return err
		}
		if _, ok := e.awaitLeader(); !ok {
			return fmt.Errorf("live-nodes: %s, run %d: no first leader", v.name, run)
		}
		for live := servers - 1; live >= servers/2+1; live-- {
			leader, _ := e.leader()
			if err := v.k.kill(e, leader); err != nil {
				return err
			}
			took, ok := e.awaitLeader()
			byLive[live] = append(byLive[live], took.Seconds())
			if !ok {
				break // no leader to kill next
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var bands []plots.Band
	var notes, undrawn []string
	means := make([]map[int]float64, len(variants)) // by variant, then live servers
	for vi, v := range variants {
		means[vi] = map[int]float64{}
		b := plots.Band{Name: v.name}
		elected := 0 // elections that ended before the cap, at any count
		for live := servers - 1; live > servers/2; live-- {
			var all []float64
			for run := range runs {
				for _, s := range times[vi*runs+run][live] {
					tab.Add(v.name, run, live, s, s < electionCap.Seconds())
					all = append(all, s)
				}
			}
			st := plots.Summarize(all)
			if st.N == 0 {
				continue
			}
			elected += st.N - capped(all)
			mean, lo, hi := plots.MeanCI95(all)
			means[vi][live] = mean
			b.X = append(b.X, float64(live))
			b.Mid, b.Low, b.High = append(b.Mid, mean), append(b.Low, lo), append(b.High, hi)
			if live <= servers/2+2 || live == servers-1 {
				notes = append(notes, fmt.Sprintf("%s, %d live: mean %.2f s (95 %% CI %.2f-%.2f), median %.2f s, max %.2f s, %d of %d runs at the %v cap",
					v.name, live, mean, lo, hi, st.P50, st.Max, capped(all), st.N, electionCap))
			}
		}
		if elected == 0 { // every election hit the cap: a line at the cap would only stretch the axis
			undrawn = append(undrawn, v.name)
			continue
		}
		bands = append(bands, b)
	}
	ch, err := plots.Lines(plots.Axes{Title: "Re-election time as leaders are killed (31 servers)", X: "live servers", Y: "seconds to elect a new leader"}, bands...)
	if err != nil {
		return nil, err
	}
	// What the killed leader's heartbeats cost our Raft, count by count:
	// its mean with them still arriving less its mean with them silent.
	var held []float64
	for live, m := range means[2] {
		if quiet, ok := means[0][live]; ok {
			held = append(held, m-quiet)
		}
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("live-nodes: no count at which both of our Raft's killings elected")
	}
	caption := fmt.Sprintf("Time to elect a new leader after killing the leader, against the servers still alive: mean of %d runs, its 95%% confidence interval shaded "+
		"(most elections take one round and a few a second one, so the mean moves with how often a second round is needed, and a percentile band would jump between the two); "+
		"an election not over after %v is recorded at that cap, and its run ends there. Paper profile; the paper's Raft sends on the heartbeat and has neither PreVote nor CheckQuorum "+
		"(with killed servers silent on the LAN it elects as ours does, so there it is run only with them still sending). "+
		"The paper's KILL makes a server drop what it receives; whether what it sends still arrives, the paper does not say, so both readings are drawn. "+
		"Neither shows the paper's cliff, about two minutes to elect with exactly 16 of 31 alive. With killed servers silent, only the slow network slows down at 16 live, "+
		"where a candidate needs every live vote and a second candidate in the same term splits them: its mean rises from %.2f s with %d live to %.2f s with %d, "+
		"a second round for some of its elections, not minutes. "+
		"With killed servers still sending, the killed leader's heartbeats still arrive and hold the followers back: our Raft's step down by CheckQuorum, "+
		"%.2f-%.2f s later on average than with killed servers silent, at every count alike; the paper's, without CheckQuorum, never does.",
		runs, electionCap, means[1][quorum+1], quorum+1, means[1][quorum], quorum, slices.Min(held), slices.Max(held))
	caption += pigeonholeCaption(pigeon, quorum, servers-1, means[4], maxAt(times[4*runs:], quorum))
	for _, name := range undrawn {
		caption += fmt.Sprintf(" Not drawn: %s, which elected no leader within the %v cap after the first kill, in any of the %d runs.", name, electionCap, runs)
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "live-nodes", Caption: caption, Charts: []*plots.Chart{ch}}}}, nil
}

// pigeonholeNetwork returns the paper's pigeonhole interval for rc and
// quorum live servers (rc's election timeout range split into quorum
// equal parts: 31.25 ms for 500-1000 ms and 16), and a network on which a
// message takes that long to arrive, give or take a third: the paper's
// reading of its cliff is that the interval is too short to collect votes
// in.
func pigeonholeNetwork(rc raft.Config, quorum int) (time.Duration, labrpc.Params) {
	interval := (rc.ElectionMax - rc.ElectionMin) / time.Duration(quorum)
	p := network()
	p.Latency, p.Jitter = interval, interval/3
	return interval, p
}

// maxAt returns the longest of the elections at live servers over runs
// (each run's elections by live servers), 0 if none.
func maxAt(runs []map[int][]float64, live int) float64 {
	var longest float64
	for _, byLive := range runs {
		for _, s := range byLive[live] {
			longest = max(longest, s)
		}
	}
	return longest
}

// pigeonholeCaption is what live-nodes' caption says of the paper's Raft
// on a network whose messages take the paper's pigeonhole interval to
// arrive: its mean election by live servers (means), from all the
// followers to the quorum, and the longest at the quorum.
func pigeonholeCaption(interval time.Duration, quorum, most int, means map[int]float64, longest float64) string {
	longestAt := quorum
	for _, live := range slices.Sorted(maps.Keys(means)) {
		if means[live] > means[longestAt] {
			longestAt = live
		}
	}
	where := fmt.Sprintf("its mean is longest at %d live, where the paper's cliff is", quorum)
	if longestAt != quorum {
		where = fmt.Sprintf("its mean is longest at %d live, not at %d, where the paper's cliff is", longestAt, quorum)
	}
	return fmt.Sprintf(" The paper explains its cliff by its pigeonhole interval, the %v of its election timeout range split %d ways, which it says is too short to collect votes in: "+
		"on a network where every message takes that long to arrive, the paper's Raft with killed servers silent takes %.2f s on average with %d live, %.2f s with %d and %.2f s with %d (the longest %.2f s), "+
		"%.1f times as long at %d live as at %d: %s, but it rises by seconds, not to minutes.",
		interval, quorum, means[most], most, means[quorum+1], quorum+1, means[quorum], quorum, longest,
		means[quorum]/means[quorum+1], quorum, quorum+1, where)
}

// capped counts the times at the election cap.
func capped(seconds []float64) int {
	n := 0
	for _, s := range seconds {
		if s >= electionCap.Seconds() {
			n++
		}
	}
	return n
}

func electionCDFExperiment() Experiment {
	return Experiment{
		Name:        "election-cdf",
		Reproduces:  "Raft paper, Fig. 16 (election time CDF), for the lab and the ChaosMonkey-paper profiles",
		Description: "distribution of the time to elect a new leader after the leader dies, lab vs paper profile, with and without PreVote, 5 servers",
		Seed:        1,
		Run:         runElectionCDF,
	}
}

func runElectionCDF(p Params) (*Result, error) {
	const servers, trials = 5, 100
	type profile struct {
		name string
		rc   raft.Config
	}
	var profiles []profile
	for _, base := range []profile{{"lab", raft.LabConfig()}, {"paper", raft.PaperConfig()}} {
		for _, pv := range []bool{true, false} {
			rc := base.rc
			rc.PreVote = pv
			name := base.name + ", PreVote"
			if !pv {
				name = base.name + ", no PreVote"
			}
			profiles = append(profiles, profile{name, rc})
		}
	}
	tab := plots.NewTable("profile", "trial", "election_ms")
	var samples []plots.Samples
	var notes []string
	for _, pr := range profiles {
		e, err := newEnv(p.Seed, servers, pr.rc, network())
		if err != nil {
			return nil, err
		}
		s := plots.Samples{Name: pr.name}
		for trial := range trials {
			if _, ok := e.awaitLeader(); !ok {
				return nil, fmt.Errorf("election-cdf: %s: no leader", pr.name)
			}
			leader, _ := e.leader()
			if err := e.m.Apply(fault.Fault{Kind: fault.Kill, Host: leader}); err != nil {
				return nil, err
			}
			took, ok := e.awaitLeader()
			if !ok {
				return nil, fmt.Errorf("election-cdf: %s: no leader after a kill", pr.name)
			}
			ms := float64(took) / float64(time.Millisecond)
			tab.Add(pr.name, trial, ms)
			s.Values = append(s.Values, ms)
			if err := e.m.Apply(fault.Fault{Kind: fault.Restart, Host: leader}); err != nil {
				return nil, err
			}
			e.w.Run(time.Second)
		}
		st := plots.Summarize(s.Values)
		notes = append(notes, fmt.Sprintf("%s: median %.0f ms, p95 %.0f ms", pr.name, st.P50, st.P95))
		samples = append(samples, s)
	}
	ch, err := plots.CDF(plots.Axes{Title: "Time to elect a new leader after the leader dies (5 servers)", X: "time to elect a new leader (ms)", Y: "fraction of trials elected by then"}, samples...)
	if err != nil {
		return nil, err
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "election-cdf", Caption: fmt.Sprintf("CDF of the time from the leader's death to a new leader with a majority, %d trials per profile.", trials), Charts: []*plots.Chart{ch}}}}, nil
}
