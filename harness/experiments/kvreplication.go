package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

func frangipaniKVExperiment() Experiment {
	return Experiment{
		Name:        "frangipani-kv",
		Reproduces:  "Frangipani report, tables of the basic and speed tests (KV Raft columns)",
		Description: "one client's ops/s and ms/op with replication on heartbeats only vs replication on Start, 3 servers",
		Seed:        1,
		Run:         runFrangipaniKV,
	}
}

func runFrangipaniKV(p Params) (*Result, error) {
	variants := []struct {
		name          string
		heartbeatOnly bool
	}{{"replicate on heartbeat", true}, {"replicate on Start", false}}
	tab := plots.NewTable("raft", "basic_ops_per_s", "basic_rpcs", "speed_ms_per_op", "speed_rpcs")
	basic := plots.Samples{Name: "basic test"}
	speed := plots.Samples{Name: "speed test"}
	var groups, notes []string
	for _, v := range variants {
		rc := raft.LabConfig()
		rc.HeartbeatOnly = v.heartbeatOnly

		// Basic test: one client on one key, a random mix of Put,
		// Append and Get, for three rounds of five seconds.
		e, err := newEnv(p.Seed, 3, rc, network())
		if err != nil {
			return nil, err
		}
		ck := e.clerk()
		if err := e.settle(ck); err != nil {
			return nil, err
		}
		ops := 0
		rpcs0 := e.c.Net().GetTotalCount()
		run := workload.Start(e.w, []workload.KV{ck}, workload.Spec{
			Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: workload.Own(),
			Done: func(int, workload.Kind, time.Duration, time.Duration) { ops++ },
		})
		e.w.Run(15 * time.Second)
		run.Stop()
		basicRate, basicRPCs := float64(ops)/15, e.c.Net().GetTotalCount()-rpcs0

		// Speed test: 1000 Appends, one after another.
		e, err = newEnv(p.Seed, 3, rc, network())
		if err != nil {
			return nil, err
		}
		ck = e.clerk()
		if err := e.settle(ck); err != nil {
			return nil, err
		}
		rpcs0 = e.c.Net().GetTotalCount()
		start := e.w.Now()
		if err := appendN(e, ck, 1000); err != nil {
			return nil, err
		}
		perOp := float64(e.w.Now()-start) / float64(time.Millisecond) / 1000
		speedRPCs := e.c.Net().GetTotalCount() - rpcs0

		tab.Add(v.name, basicRate, basicRPCs, perOp, speedRPCs)
		groups = append(groups, v.name)
		basic.Values = append(basic.Values, basicRate)
		speed.Values = append(speed.Values, perOp)
		notes = append(notes, fmt.Sprintf("%s: basic %.0f ops/s (%d RPCs), speed %.3f ms/op (%d RPCs)", v.name, basicRate, basicRPCs, perOp, speedRPCs))
	}
	f1, err := plots.Bars(plots.Axes{Title: "Basic test: one client's operations per second", Y: "operations per second"}, groups, basic)
	if err != nil {
		return nil, err
	}
	f2, err := plots.Bars(plots.Axes{Title: "Speed test: 1000 sequential Appends", Y: "milliseconds per Append"}, groups, speed)
	if err != nil {
		return nil, err
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{
		{Name: "frangipani-kv-basic", Caption: "One client's operations per second on one key (lab profile, 3 servers): Raft that replicates only on heartbeats against Raft that replicates on Start. " +
			"Bars rise from zero on a linear axis, so their heights compare as the values do: the short bar is short because it is about sixty times smaller. " +
			"Each bar is labelled with its value.", Charts: []*plots.Chart{f1}},
		{Name: "frangipani-kv-speed", Caption: "Milliseconds per Append over 1000 sequential Appends, same two Rafts, bars from zero on a linear axis, each labelled with its value.", Charts: []*plots.Chart{f2}},
	}}, nil
}

// appendN has ck do n Appends one after another.
func appendN(e *env, ck *kvraft.Clerk, n int) error {
	done := 0
	var next func()
	next = func() {
		if done < n {
			ck.Append("k", "x", func() { done++; next() })
		}
	}
	next()
	if !e.w.RunUntil(func() bool { return done == n }, time.Hour) {
		return fmt.Errorf("%d Appends did not finish within an hour of virtual time", n)
	}
	return nil
}
