package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

func putLatencyExperiment() Experiment {
	return Experiment{
		Name:        "put-latency",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 2",
		Description: "Put latency of one client against cluster size",
		Seed:        1,
		Run:         runPutLatency,
	}
}

func runPutLatency(seed int64) (*Result, error) {
	tab := plots.NewTable("servers", "puts_in_10s", "latency_mean_ms", "latency_p5_ms", "latency_p95_ms")
	band := plots.Band{Name: "one client (mean, p5-p95)"}
	var notes []string
	for _, n := range paperSizes() {
		e, err := newEnv(seed, n, raft.PaperConfig(), network())
		if err != nil {
			return nil, err
		}
		if err := e.settle(e.clerk()); err != nil {
			return nil, err
		}
		p := e.startPutters(1, 1)
		e.w.Run(10 * time.Second)
		p.stop()
		st := plots.Summarize(millis(p.latency))
		tab.Add(n, len(p.completed), st.Mean, st.P5, st.P95)
		band.X = append(band.X, float64(n))
		band.Mid, band.Low, band.High = append(band.Mid, st.Mean), append(band.Low, st.P5), append(band.High, st.P95)
		notes = append(notes, fmt.Sprintf("%d servers: %d Puts in 10 s, %.3f ms mean", n, len(p.completed), st.Mean))
	}
	fig, err := plots.Lines("Put latency against cluster size", "servers", "latency (ms)", band)
	if err != nil {
		return nil, err
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "put-latency", Caption: "Latency of one client's Puts against cluster size: mean, with p5-p95 shaded.", Plot: fig}}}, nil
}
