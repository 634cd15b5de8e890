package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/fault"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

// trialsPerSize is how many times each reconnection experiment repeats
// at each cluster size.
const trialsPerSize = 10

func isolateLeaderExperiment() Experiment {
	return Experiment{
		Name:        "isolate-leader",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 6",
		Description: "time to serve the first Put after the leader is cut off, against cluster size",
		Seed:        1,
		Run: func(seed int64) (*Result, error) {
			return reconnection(seed, "isolate-leader", "Time to the first Put after isolating the leader",
				func(e *env, leader int) (time.Duration, error) {
					return 0, e.m.Apply(chaos.IsolateLeader(leader))
				})
		},
	}
}

func allMinorityExperiment() Experiment {
	return Experiment{
		Name:        "all-minority",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 7",
		Description: "time to serve the first Put after an all-minority partition heals, against cluster size",
		Seed:        1,
		Run: func(seed int64) (*Result, error) {
			return reconnection(seed, "all-minority", "Time to the first Put after an all-minority partition heals",
				func(e *env, leader int) (time.Duration, error) {
					if err := e.m.Apply(chaos.SplitAllMinority(e.c.Replicas(0), e.w.Rand())); err != nil {
						return 0, err
					}
					e.w.Run(3 * time.Second)
					return 0, e.m.Apply(fault.Fault{Kind: fault.Heal})
				})
		},
	}
}

// reconnection measures, per cluster size and trial, the time from a
// fault (applied by apply, given the leader) to the first Put that
// completes, and draws a box plot per cluster size.
func reconnection(seed int64, name, title string, apply func(e *env, leader int) (time.Duration, error)) (*Result, error) {
	tab := plots.NewTable("servers", "trial", "first_put_s")
	var boxes []plots.Samples
	var notes []string
	for _, n := range paperSizes() {
		e, err := newEnv(seed, n, raft.PaperConfig(), network())
		if err != nil {
			return nil, err
		}
		ck := e.clerk()
		var times []float64
		for trial := range trialsPerSize {
			if err := e.settle(ck); err != nil {
				return nil, err
			}
			leader, _ := e.c.Leader(0)
			if _, err := apply(e, leader); err != nil {
				return nil, err
			}
			took, ok := e.put(ck, "k", fmt.Sprint(trial), time.Minute)
			if !ok {
				return nil, fmt.Errorf("%s: %d servers, trial %d: no Put within a minute", name, n, trial)
			}
			tab.Add(n, trial, took)
			times = append(times, took.Seconds())
			if err := e.m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
				return nil, err
			}
			e.w.Run(2 * time.Second) // let the cluster settle before the next trial
		}
		st := plots.Summarize(times)
		boxes = append(boxes, plots.Samples{Name: fmt.Sprint(n), Values: times})
		notes = append(notes, fmt.Sprintf("%d servers: mean %.3f s, p95 %.3f s", n, st.Mean, st.P95))
	}
	fig, err := plots.Boxes(title, "servers", "seconds to the first Put", boxes...)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("%s (paper profile): the spread of %d trials per cluster size.", title, trialsPerSize)
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: name, Caption: caption, Plot: fig}}}, nil
}
