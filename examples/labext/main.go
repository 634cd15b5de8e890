// Command labext is a researcher's own labsim: the lab's experiments and
// sweep scenarios plus one of each of its own, run by the lab's runner
// (progress, CSV, PNG and SVG files, an index of the figures, failing
// seeds with the commands that replay them). A module of your own does
// the same: import github.com/replab/replab/harness/labsim and hand labsim.Main
// your catalogue.
//
//	go run ./examples/labext list
//	go run ./examples/labext run ext-put-latency -out out
//	go run ./examples/labext sweep ext-isolated-leader -seeds 100
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/experiments"
	"github.com/replab/replab/harness/labsim"
	"github.com/replab/replab/harness/sweep"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvdeploy"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

func main() { labsim.Main(catalogue()) }

// catalogue is the lab's catalogue with this program's experiment and
// scenario added.
func catalogue() labsim.Catalogue {
	c := labsim.Lab()
	c.Experiments = append(c.Experiments, putLatency())
	c.Scenarios = append(c.Scenarios, isolatedLeader())
	c.Command = "go run ./examples/labext"
	return c
}

// kv starts a world from seed with n key/value servers (lab profile, no
// snapshots) and a clerk on a host of its own.
func kv(seed int64, n int) (*sim.World, *cluster.Cluster, *kvraft.Clerk, error) {
	w := sim.NewWorld(seed)
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{
		{Name: "kv", Replicas: n, Factory: kvdeploy.Factory(-1, kvraft.Options{Raft: raft.LabConfig()})},
	}})
	if err != nil {
		return nil, nil, nil, err
	}
	host := c.NewClient("clerk")
	return w, c, kvraft.MakeClerk(host, c.Ends(host, 0, nil)), nil
}

// put runs w until ck's Put completes or limit passes, and returns how
// long it took and whether it completed.
func put(w *sim.World, ck *kvraft.Clerk, key, value string, limit time.Duration) (time.Duration, bool) {
	start, done := w.Now(), false
	ck.Put(key, value, func() { done = true })
	ok := w.RunUntil(func() bool { return done }, limit)
	return w.Now() - start, ok
}

// putLatency is an experiment: one clerk's Put latency against cluster
// size.
func putLatency() experiments.Experiment {
	return experiments.Experiment{
		Name:        "ext-put-latency",
		Reproduces:  "nothing: an example of an experiment from outside the lab",
		Description: "mean latency of 20 sequential Puts against cluster size (3, 5, 7 servers), lab profile",
		Seed:        1,
		Run: func(p experiments.Params) (*experiments.Result, error) {
			tab := plots.NewTable("servers", "latency_mean_ms")
			band := plots.Band{Name: "one clerk"}
			for _, n := range []int{3, 5, 7} {
				w, _, ck, err := kv(p.Seed, n)
				if err != nil {
					return nil, err
				}
				var total time.Duration
				for i := range 20 {
					took, ok := put(w, ck, "k", fmt.Sprint(i), time.Minute)
					if !ok {
						return nil, fmt.Errorf("%d servers: Put %d did not complete within a minute", n, i)
					}
					total += took
				}
				mean := float64(total) / 20 / float64(time.Millisecond)
				tab.Add(n, mean)
				band.X, band.Mid = append(band.X, float64(n)), append(band.Mid, mean)
			}
			ch, err := plots.Lines(plots.Axes{Title: "Put latency against cluster size", X: "servers", Y: "mean latency (ms)"}, band)
			if err != nil {
				return nil, err
			}
			return &experiments.Result{Table: tab, Figures: []plots.Figure{{
				Name: "ext-put-latency", Caption: "Mean latency of one clerk's 20 sequential Puts (the first one waits for the first election).", Charts: []*plots.Chart{ch},
			}}}, nil
		},
	}
}

// isolatedLeader is a sweep scenario: cut the leader of three servers off
// and check that a Put still completes within ten seconds.
func isolatedLeader() sweep.Scenario {
	return sweep.Scenario{
		Name:        "ext-isolated-leader",
		Description: "3 KV servers; the leader is cut off; a Put must complete within 10 s (an example of a scenario from outside the lab)",
		Run: func(seed int64, _ string, trace io.Writer) sweep.Outcome {
			o := sweep.Outcome{Seed: seed}
			w, c, ck, err := kv(seed, 3)
			if err != nil {
				o.Problem = err.Error()
				return o
			}
			w.SetTraceWriter(trace)
			if _, ok := put(w, ck, "k", "before", time.Minute); !ok {
				o.Problem = "no Put completed before the fault"
				return o
			}
			leader, _ := c.Leader(0)
			if err := c.Apply(chaos.IsolateLeader(leader)); err != nil {
				o.Problem = err.Error()
				return o
			}
			if took, ok := put(w, ck, "k", "after", 10*time.Second); !ok {
				o.Problem = fmt.Sprintf("no Put completed within %v of isolating leader %d", took, leader)
			}
			o.Ops, o.FaultLog = 2, c.Monkey().Log().String()
			return o
		},
	}
}
