package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/fault"
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

func runTimeoutRange(seed int64) (*Result, error) {
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
			e, err := newEnv(seed, servers, rc, nw.p)
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
	fig, err := plots.Lines("Re-election after isolating all 31 servers", "election timeout upper bound (ms), lower bound 500 ms", "seconds to the first Put", bands...)
	if err != nil {
		return nil, err
	}
	plots.LogY(fig)
	fig.Legend.Left = false
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "timeout-range", Caption: fmt.Sprintf("Time to the first Put after all 31 servers were isolated and reconnected, against the width of the election timeout range: mean of %d trials, p5-p95 shaded (a trial that elects no leader is recorded at the 30 s cap).", trials), Plot: fig}}}, nil
}

func liveNodesExperiment() Experiment {
	return Experiment{
		Name:        "live-nodes",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 9",
		Description: "re-election time as leaders of 31 servers are killed one after another down to 16 live, on a LAN and on a slow network",
		Seed:        1,
		Run:         runLiveNodes,
	}
}

func runLiveNodes(seed int64) (*Result, error) {
	const servers, runs = 31, 10
	tab := plots.NewTable("network", "run", "live_servers", "election_s", "elected")
	var bands []plots.Band
	var notes []string
	for _, nw := range networks() {
		byLive := map[int][]float64{}
		for run := range runs {
			e, err := newEnv(seed*1000+int64(run), servers, raft.PaperConfig(), nw.p)
			if err != nil {
				return nil, err
			}
			if _, ok := e.awaitLeader(); !ok {
				return nil, fmt.Errorf("live-nodes: no first leader")
			}
			for live := servers - 1; live >= servers/2+1; live-- {
				leader, _ := e.leader()
				if err := e.m.Apply(fault.Fault{Kind: fault.Kill, Host: leader}); err != nil {
					return nil, err
				}
				took, ok := e.awaitLeader()
				tab.Add(nw.name, run, live, took, ok)
				byLive[live] = append(byLive[live], took.Seconds())
				if !ok {
					break // no leader to kill next
				}
			}
		}
		b := plots.Band{Name: nw.name}
		for live := servers/2 + 1; live < servers; live++ {
			st := plots.Summarize(byLive[live])
			if st.N == 0 {
				continue
			}
			b.X = append(b.X, float64(live))
			b.Mid, b.Low, b.High = append(b.Mid, st.Mean), append(b.Low, st.P5), append(b.High, st.P95)
			if live <= servers/2+2 {
				notes = append(notes, fmt.Sprintf("%s, %d live: mean %.2f s, p95 %.2f s", nw.name, live, st.Mean, st.P95))
			}
		}
		bands = append(bands, b)
	}
	fig, err := plots.Lines("Re-election time as leaders are killed (31 servers)", "live servers", "seconds to elect a leader", bands...)
	if err != nil {
		return nil, err
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "live-nodes", Caption: fmt.Sprintf("Time to elect a new leader after killing the leader, against the servers still alive (mean of %d runs, p5-p95 shaded; paper profile, elections after 500-1000 ms).", runs), Plot: fig}}}, nil
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

func runElectionCDF(seed int64) (*Result, error) {
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
		e, err := newEnv(seed, servers, pr.rc, network())
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
	fig, err := plots.CDF("Time to elect a new leader after the leader dies (5 servers)", "milliseconds", samples...)
	if err != nil {
		return nil, err
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "election-cdf", Caption: fmt.Sprintf("CDF of the time from the leader's death to a new leader with a majority, %d trials per profile.", trials), Plot: fig}}}, nil
}
