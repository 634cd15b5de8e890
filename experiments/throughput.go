package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/fault"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

func concurrencyExperiment() Experiment {
	return Experiment{
		Name:        "concurrency",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 1",
		Description: "successful Puts in 5 s against the number of concurrent clients, per cluster size",
		Seed:        1,
		Run:         runConcurrency,
	}
}

func runConcurrency(seed int64) (*Result, error) {
	clients := []int{1, 10, 100, 500, 1000}
	sizes := paperSizes()
	puts := make([]int, len(sizes)*len(clients))
	err := parallel(len(puts), func(i int) error {
		n, k := sizes[i/len(clients)], clients[i%len(clients)]
		e, err := newEnv(seed, n, raft.PaperConfig(), network())
		if err != nil {
			return err
		}
		if err := e.settle(e.clerk()); err != nil {
			return err
		}
		p := e.startPutters(k, 1)
		e.w.Run(5 * time.Second)
		p.stop()
		puts[i] = len(p.completed)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("servers", "clients", "puts_in_5s")
	var bands []plots.Band
	var notes []string
	for si, n := range sizes {
		b := plots.Band{Name: fmt.Sprintf("%d servers", n)}
		for ci, k := range clients {
			v := puts[si*len(clients)+ci]
			tab.Add(n, k, v)
			b.X, b.Mid = append(b.X, float64(k)), append(b.Mid, float64(v))
		}
		bands = append(bands, b)
		notes = append(notes, fmt.Sprintf("%d servers: %v Puts in 5 s with %v clients", n, b.Mid, clients))
	}
	fig, err := plots.Lines("Concurrent Puts in 5 s", "concurrent clients", "successful Puts", bands...)
	if err != nil {
		return nil, err
	}
	plots.LogX(fig)
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "concurrency", Caption: "Successful Puts in 5 s of virtual time against concurrent clients (paper profile, 1 Gbit/s uplinks, 20 µs of CPU per message).", Plot: fig}}}, nil
}

func leaderFailureExperiment() Experiment {
	return Experiment{
		Name:        "leader-failure",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 3",
		Description: "Put throughput over time around a killed (and later restarted) leader, 5 and 31 servers",
		Seed:        1,
		Run:         runLeaderFailure,
	}
}

func runLeaderFailure(seed int64) (*Result, error) {
	const (
		clients = 50
		bin     = 100 * time.Millisecond
		killAt  = 3 * time.Second
		backAt  = 6 * time.Second
		length  = 10 * time.Second
	)
	tab := plots.NewTable("servers", "time_s", "puts_per_s")
	var series []plots.Series
	var faults []fault.Interval
	var notes []string
	for _, n := range []int{5, 31} {
		e, err := newEnv(seed, n, raft.PaperConfig(), network())
		if err != nil {
			return nil, err
		}
		if err := e.settle(e.clerk()); err != nil {
			return nil, err
		}
		start := e.w.Now()
		p := e.startPutters(clients, 1)
		e.w.Run(killAt)
		leader, _ := e.c.Leader(0)
		if err := e.m.Apply(fault.Fault{Kind: fault.Kill, Host: leader}); err != nil {
			return nil, err
		}
		e.w.Run(backAt - killAt)
		if err := e.m.Apply(fault.Fault{Kind: fault.Restart, Host: leader}); err != nil {
			return nil, err
		}
		e.w.Run(length - backAt)
		p.stop()

		s := plots.Series{Name: fmt.Sprintf("%d servers", n)}
		counts := make([]int, int(length/bin))
		for _, at := range p.completed {
			if k := int((at - start) / bin); k < len(counts) {
				counts[k]++
			}
		}
		for k, c := range counts {
			t := (time.Duration(k) * bin).Seconds()
			rate := float64(c) / bin.Seconds()
			tab.Add(n, t, rate)
			s.X, s.Y = append(s.X, t), append(s.Y, rate)
		}
		series = append(series, s)
		if n == 5 {
			faults = e.m.Log().Shift(-start).Intervals(length)
		}
		notes = append(notes, fmt.Sprintf("%d servers: no Put completed for %v after the kill", n, gap(p.completed, start+killAt).Round(time.Millisecond)))
	}
	fig, err := plots.TimeSeries("Put throughput around a leader failure", "time (s)", "Puts per second", faults, series...)
	if err != nil {
		return nil, err
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "leader-failure", Caption: "Puts per second (100 ms bins) from 50 clients; the leader is killed at 3 s and restarted at 6 s (shaded: the 5-server run's fault).", Plot: fig}}}, nil
}

// gap returns the longest stretch after from in which no Put completed.
func gap(completed []time.Duration, from time.Duration) time.Duration {
	longest, last := time.Duration(0), from
	for _, at := range completed {
		if at > from {
			longest = max(longest, at-last)
			last = at
		}
	}
	return longest
}

func valueSizeExperiment() Experiment {
	return Experiment{
		Name:        "value-size",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Figs. 4 and 5",
		Description: "Put throughput and latency against value size (1 KB to 1 MB), 31 servers, 10 clients, 1 Gbit/s uplinks",
		Seed:        1,
		Run:         runValueSize,
	}
}

func runValueSize(seed int64) (*Result, error) {
	const servers, clients = 31, 10
	sizes := []int{1 << 10, 32 << 10, 128 << 10, 512 << 10, 1 << 20}
	tab := plots.NewTable("value_bytes", "puts_in_5s", "latency_mean_ms", "latency_p5_ms", "latency_p95_ms")
	tput := plots.Band{Name: "Puts in 5 s"}
	lat := plots.Band{Name: "latency (mean, p5-p95)"}
	for _, size := range sizes {
		e, err := newEnv(seed, servers, raft.PaperConfig(), network())
		if err != nil {
			return nil, err
		}
		if err := e.settle(e.clerk()); err != nil {
			return nil, err
		}
		p := e.startPutters(clients, size)
		e.w.Run(5 * time.Second)
		p.stop()
		st := plots.Summarize(millis(p.latency))
		tab.Add(size, len(p.completed), st.Mean, st.P5, st.P95)
		x := float64(size) / 1024
		tput.X, tput.Mid = append(tput.X, x), append(tput.Mid, float64(len(p.completed)))
		lat.X, lat.Mid = append(lat.X, x), append(lat.Mid, st.Mean)
		lat.Low, lat.High = append(lat.Low, st.P5), append(lat.High, st.P95)
	}
	f4, err := plots.Lines("Puts in 5 s against value size (31 servers, 10 clients)", "value size (KB)", "successful Puts", tput)
	if err != nil {
		return nil, err
	}
	f5, err := plots.Lines("Put latency against value size (31 servers, 10 clients)", "value size (KB)", "latency (ms)", lat)
	if err != nil {
		return nil, err
	}
	plots.LogX(f4)
	plots.LogX(f5)
	return &Result{Table: tab, Figures: []plots.Figure{
		{Name: "value-size-throughput", Caption: "Successful Puts in 5 s against value size; the leader's 1 Gbit/s uplink carries each value to 30 followers.", Plot: f4},
		{Name: "value-size-latency", Caption: "Put latency against value size: mean, with the p5-p95 range shaded.", Plot: f5},
	}}, nil
}
