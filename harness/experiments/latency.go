package experiments

import (
	"fmt"
	"slices"
	"time"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

func putLatencyExperiment() Experiment {
	return Experiment{
		Name:        "put-latency",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 2",
		Description: "Put latency of one client against cluster size, for our Raft (send on Start) and the paper's (send on the 400 ms heartbeat)",
		Seed:        1,
		Run:         runPutLatency,
	}
}

// A mode is a way of running Raft that a figure compares with another.
type mode struct {
	name string
	rc   raft.Config
}

// paperModes are the paper profile as our Raft runs it, sending new
// entries as soon as Start is called, and as the paper's Raft did,
// holding them back until the next heartbeat, with no bound on the bytes
// one heartbeat carries.
func paperModes() []mode {
	ours, theirs := raft.PaperConfig(), raft.PaperConfig()
	theirs.HeartbeatOnly, theirs.MaxBatchBytes = true, 0
	return []mode{
		{"ours: send on Start", ours},
		{"the paper's: send on the 400 ms heartbeat", theirs},
	}
}

func runPutLatency(p Params) (*Result, error) {
	tab := plots.NewTable("raft", "servers", "puts_in_10s", "latency_mean_ms", "latency_p5_ms", "latency_p95_ms")
	var bands []plots.Band
	var notes []string
	for _, m := range paperModes() {
		band := plots.Band{Name: m.name}
		for _, n := range paperSizes() {
			e, err := newEnv(p.Seed, n, m.rc, network())
			if err != nil {
				return nil, err
			}
			if err := e.settle(e.clerk()); err != nil {
				return nil, err
			}
			pt := e.startPutters(1, 1)
			e.w.Run(10 * time.Second)
			pt.stop()
			st := plots.Summarize(millis(pt.latency))
			tab.Add(m.name, n, len(pt.completed), st.Mean, st.P5, st.P95)
			band.X = append(band.X, float64(n))
			band.Mid, band.Low, band.High = append(band.Mid, st.Mean), append(band.Low, st.P5), append(band.High, st.P95)
			if n == 5 || n == 31 {
				notes = append(notes, fmt.Sprintf("%s, %d servers: %d Puts in 10 s, %.3g ms mean", m.name, n, len(pt.completed), st.Mean))
			}
		}
		bands = append(bands, band)
	}
	ch, err := plots.Lines(plots.Axes{Title: "Put latency of one client against cluster size", X: "servers", Y: "latency (ms, log scale)", LogY: true}, bands...)
	if err != nil {
		return nil, err
	}
	var ratios []float64 // the paper's mean over ours, size by size
	for i := range bands[0].Mid {
		ratios = append(ratios, bands[1].Mid[i]/bands[0].Mid[i])
	}
	caption := fmt.Sprintf("Latency of one client's Puts against cluster size (paper profile): mean, with p5-p95 shaded. "+
		"The value axis is logarithmic because the two Rafts differ %.0f- to %.0f-fold: ours sends an entry as soon as Start is called, so a Put costs two round trips; "+
		"the paper's holds it until the next heartbeat, so a client that puts again as soon as it is answered waits nearly the whole %v "+
		"(the paper measured 26 Puts in 10 s, about 384 ms each).", slices.Min(ratios), slices.Max(ratios), paperModes()[1].rc.Heartbeat)
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "put-latency", Caption: caption, Charts: []*plots.Chart{ch}}}}, nil
}
