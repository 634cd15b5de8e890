package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

// trialsPerSize is how many times each reconnection experiment repeats
// at each cluster size.
const trialsPerSize = 10

// fastClerk is the timeout of the clerks that measure the first Put after
// a fault: well under an election, so that the first Put waits for the
// new leader, not for the clerk to give up on the old one.
const fastClerk = 50 * time.Millisecond

// newReconnection builds n servers in the paper profile and a clerk that
// gives up on a server after fastClerk.
func newReconnection(seed int64, n int) (*env, *kvraft.Clerk, error) {
	e, err := newEnv(seed, n, raft.PaperConfig(), network())
	if err != nil {
		return nil, nil, err
	}
	ck := e.clerk()
	ck.SetTimeout(fastClerk)
	return e, ck, nil
}

func isolateLeaderExperiment() Experiment {
	return Experiment{
		Name:        "isolate-leader",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 6",
		Description: "time to re-elect, and to serve the first Put, after the leader is cut off, against cluster size",
		Seed:        1,
		Run:         runIsolateLeader,
	}
}

func runIsolateLeader(p Params) (*Result, error) {
	tab := plots.NewTable("servers", "trial", "reelection_s", "first_put_s")
	var elections, puts []plots.Samples
	var notes []string
	for _, n := range paperSizes() {
		e, ck, err := newReconnection(p.Seed, n)
		if err != nil {
			return nil, err
		}
		el, pu := plots.Samples{Name: fmt.Sprint(n)}, plots.Samples{Name: fmt.Sprint(n)}
		for trial := range trialsPerSize {
			if err := e.settle(ck); err != nil {
				return nil, err
			}
			old, _ := e.leader()
			if err := e.m.Apply(chaos.IsolateLeader(old)); err != nil {
				return nil, err
			}
			start, done := e.w.Now(), false
			elected := time.Duration(-1)
			ck.Put("k", fmt.Sprint(trial), func() { done = true })
			ok := e.w.RunUntil(func() bool {
				if elected < 0 {
					if _, ok := e.leader(); ok {
						elected = e.w.Now() - start
					}
				}
				return done && elected >= 0
			}, time.Minute)
			if !ok {
				return nil, fmt.Errorf("isolate-leader: %d servers, trial %d: no new leader and Put within a minute", n, trial)
			}
			took := e.w.Now() - start
			if !done {
				return nil, fmt.Errorf("isolate-leader: %d servers, trial %d: the Put did not complete", n, trial)
			}
			tab.Add(n, trial, elected, took)
			el.Values, pu.Values = append(el.Values, elected.Seconds()), append(pu.Values, took.Seconds())
			if err := e.m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
				return nil, err
			}
			e.w.Run(2 * time.Second) // let the cluster settle before the next trial
		}
		elections, puts = append(elections, el), append(puts, pu)
		se, sp := plots.Summarize(el.Values), plots.Summarize(pu.Values)
		notes = append(notes, fmt.Sprintf("%d servers: re-election mean %.3f s (max %.3f s), first Put mean %.3f s", n, se.Mean, se.Max, sp.Mean))
	}
	fe, err := plots.Boxes(plots.Axes{Title: "Re-election after isolating the leader", X: "servers", Y: "seconds to a new leader"}, elections...)
	if err != nil {
		return nil, err
	}
	fp, err := plots.Boxes(plots.Axes{Title: "First Put after isolating the leader", X: "servers", Y: "seconds to the first Put"}, puts...)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("Time from cutting the leader off to a new leader with a majority (top), and to the first Put a clerk completes (bottom), "+
		"%d trials per cluster size (paper profile). Re-election is bounded by the election timeout: the followers heard the leader just before the cut (it had just committed the trial's previous Put), "+
		"and the first of them to time out, %s later, wins, a round of votes after that; the more followers, the earlier the first timeout, so larger clusters re-elect a little sooner. "+
		"The clerk gives up on a server after %v (the lab's clerks wait 1 s, which would hide the election behind their timer), so its first Put follows the election closely.",
		trialsPerSize, electionWindow(raft.PaperConfig()), fastClerk)
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "isolate-leader", Caption: caption, Charts: []*plots.Chart{fe, fp}}}}, nil
}

func allMinorityExperiment() Experiment {
	return Experiment{
		Name:        "all-minority",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 7",
		Description: "time to serve the first Put after an all-minority partition heals, against cluster size",
		Seed:        1,
		Run:         runAllMinority,
	}
}

func runAllMinority(p Params) (*Result, error) {
	tab := plots.NewTable("servers", "trial", "first_put_s")
	var boxes []plots.Samples
	var notes []string
	for _, n := range paperSizes() {
		e, ck, err := newReconnection(p.Seed, n)
		if err != nil {
			return nil, err
		}
		box := plots.Samples{Name: fmt.Sprint(n)}
		for trial := range trialsPerSize {
			if err := e.settle(ck); err != nil {
				return nil, err
			}
			if err := e.m.Apply(chaos.SplitAllMinority(n, e.w.Stream("nemesis"))); err != nil {
				return nil, err
			}
			e.w.Run(3 * time.Second)
			if err := e.m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
				return nil, err
			}
			took, ok := e.put(ck, "k", fmt.Sprint(trial), time.Minute)
			if !ok {
				return nil, fmt.Errorf("all-minority: %d servers, trial %d: no Put within a minute", n, trial)
			}
			tab.Add(n, trial, took)
			box.Values = append(box.Values, took.Seconds())
			e.w.Run(2 * time.Second) // let the cluster settle before the next trial
		}
		boxes = append(boxes, box)
		st := plots.Summarize(box.Values)
		notes = append(notes, fmt.Sprintf("%d servers: mean %.3f s, p95 %.3f s", n, st.Mean, st.P95))
	}
	ch, err := plots.Boxes(plots.Axes{Title: "First Put after an all-minority partition heals", X: "servers", Y: "seconds to the first Put"}, boxes...)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("Time from healing a partition into minorities (3 s long, so no side could elect) to the first Put a clerk completes, %d trials per cluster size (paper profile; the clerk gives up on a server after %v).", trialsPerSize, fastClerk)
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "all-minority", Caption: caption, Charts: []*plots.Chart{ch}}}}, nil
}
