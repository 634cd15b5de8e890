package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/raft"
)

func concurrencyExperiment() Experiment {
	return Experiment{
		Name:        "concurrency",
		Reproduces:  "Raft-KV-with-ChaosMonkey paper, Fig. 1",
		Description: "successful Puts per second against the number of concurrent clients (1 to 1000), per cluster size (5 to 31), our Raft and the paper's",
		Seed:        1,
		Full:        "counts Puts over the paper's 5 s instead of 0.5 s: ten times the work",
		Run:         runConcurrency,
	}
}

// concurrencyWindow is how long concurrency counts Puts: the paper's 5 s
// with -full, else half a second, which keeps labsim figures within half a
// minute on two cores (the 25 runs commit about 600 000 Puts per second of
// virtual time between them, each applied by every server: 10 million
// applications).
func concurrencyWindow(full bool) time.Duration {
	if full {
		return 5 * time.Second
	}
	return time.Second / 2
}

func runConcurrency(p Params) (*Result, error) {
	clients := []int{1, 10, 100, 500, 1000}
	sizes := paperSizes()
	// The paper's design commits a Put per client per heartbeat or two:
	// it is counted over the paper's 5 s, which costs little.
	designs := []struct {
		name, title string
		rc          raft.Config
		window      time.Duration
	}{{"ours", "our Raft", raft.PaperConfig(), concurrencyWindow(p.Full)}, {"the paper's", "the paper's Raft", paperRaft(), concurrencyWindow(true)}}
	window := designs[0].window
	per := len(sizes) * len(clients) // runs per design
	puts := make([]int, len(designs)*per)
	err := parallel(len(puts), func(i int) error {
		d := designs[i/per]
		n, k := sizes[i%per/len(clients)], clients[i%len(clients)]
		e, err := newEnv(p.Seed, n, d.rc, network())
		if err != nil {
			return err
		}
		if err := e.settle(e.clerk()); err != nil {
			return err
		}
		pt := e.startPutters(k, 1)
		e.w.Run(d.window)
		pt.stop()
		puts[i] = len(pt.completed)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("design", "servers", "clients", "window_s", "puts", "puts_per_s")
	var charts []*plots.Chart
	var notes []string
	rates := make([][][]float64, len(designs)) // by design, size, then clients
	for di, d := range designs {
		var bands []plots.Band
		rates[di] = make([][]float64, len(sizes))
		for si, n := range sizes {
			b := plots.Band{Name: fmt.Sprintf("%d servers", n)}
			// Each size's markers sit a little aside, by dodge decades per
			// size, so that equal values do not hide each other.
			const dodge = 0.035
			shift := math.Pow(10, dodge*(float64(si)-float64(len(sizes)-1)/2))
			for ci, k := range clients {
				v := puts[di*per+si*len(clients)+ci]
				rate := float64(v) / d.window.Seconds()
				tab.Add(d.name, n, k, d.window, v, rate)
				rates[di][si] = append(rates[di][si], rate)
				b.X, b.Mid = append(b.X, float64(k)*shift), append(b.Mid, rate)
			}
			bands = append(bands, b)
			notes = append(notes, fmt.Sprintf("%s, %d servers: %v Puts per second with %v clients", d.name, n, rates[di][si], clients))
		}
		ch, err := plots.Lines(plots.Axes{Title: fmt.Sprintf("(%c) Concurrent Puts, %s", 'a'+di, d.title), X: "concurrent clients (log scale)", Y: "successful Puts per second (log scale)", LogX: true, LogY: true}, bands...)
		if err != nil {
			return nil, err
		}
		charts = append(charts, ch)
	}
	ours, theirs := rates[0], rates[1]
	first, last := ours[0], ours[len(ours)-1]
	fewest, most := math.Inf(1), 0.0 // how much less the largest cluster does than the smallest, over the loads
	for ci := range clients {
		less := 1 - last[ci]/first[ci]
		fewest, most = min(fewest, less), max(most, less)
	}
	top := len(clients) - 1
	caption := fmt.Sprintf("Successful Puts per second against concurrent clients, each putting to a key of its own, counted over %v of virtual time "+
		"(paper profile, %s uplinks, %s of CPU per message), for each cluster size: (a) our Raft, which sends new entries when Start is called, (b) the paper's, which sends them on the next heartbeat (every %v), counted over %v. ", window, uplinkSpeed(), messageCPU(), designs[1].rc.Heartbeat, designs[1].window)
	caption += fmt.Sprintf("(a) With %d servers: %.0f Puts a second from %d client(s), %.0f times as many from %d, %.0f times as many again from %d, "+
		"and from %d to %d clients the count levels off near %.0f. ",
		sizes[0], first[0], clients[0], first[1]/first[0], clients[1], first[2]/first[1], clients[2], clients[top-1], clients[top], first[top])
	caption += fmt.Sprintf("Every cluster size follows the same curve; %d servers do %.0f-%.0f %% fewer Puts than %d at every load. ", sizes[len(sizes)-1], 100*fewest, 100*most, sizes[0])
	tfirst := theirs[0]
	caption += fmt.Sprintf("(b) The paper's design, %d servers: %.1f Puts a second from %d client(s) (about one a heartbeat), %.0f with %d, %.0f with %d and %.0f with %d: "+
		"the rate grows in proportion to the clients, since each heartbeat carries every client's waiting Put; (a) does %.0f-%.0f times as many at every load. "+
		"The paper's Fig. 1 grew in proportion too up to %d clients and peaked near %d Puts in 5 s (%.0f a second) at %d clients with 5 servers; its design here goes on growing to %d clients: "+
		"what capped the paper's servers (its HTTP, its machines) is not in our model. ",
		sizes[0], tfirst[0], clients[0], tfirst[1], clients[1], tfirst[2], clients[2], tfirst[top], clients[top], slices.Min(ratios(first, tfirst)), slices.Max(ratios(first, tfirst)),
		paperFig1Linear, paperFig1Peak, float64(paperFig1Peak)/5, paperFig1PeakClients, clients[top])
	caption += fmt.Sprintf("Both axes are logarithmic, and each size's markers are shifted a little sideways so that equal values do not hide each other: "+
		"each belongs to %s clients. ", joinAnd(strings.Fields(strings.Trim(fmt.Sprint(clients), "[]"))))
	if p.Full {
		caption += "Counted over the paper's 5 s."
	} else {
		caption += fmt.Sprintf("The paper counted over 5 s; `labsim figures -full` does too, with ten times the work (the leader of %d servers commits up to %.0f Puts a second, each applied by every server).", sizes[len(sizes)-1], slices.Max(last))
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "concurrency", Caption: caption, Charts: charts}}}, nil
}

// Paper 001's Fig. 1, as its text reads it: successful Puts in 5 s grew
// linearly up to paperFig1Linear clients, and peaked for 5 servers near
// paperFig1Peak at paperFig1PeakClients.
const (
	paperFig1Linear      = 100
	paperFig1Peak        = 2000
	paperFig1PeakClients = 750
)

// ratios returns a[i]/b[i] for each i.
func ratios(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] / b[i]
	}
	return out
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

func runLeaderFailure(p Params) (*Result, error) {
	const (
		clients = 10
		bin     = 100 * time.Millisecond
		killAt  = 3 * time.Second
		backAt  = 6 * time.Second
		length  = 10 * time.Second
	)
	tab := plots.NewTable("servers", "time_s", "puts_per_s")
	sizes := []int{5, 31}
	series := make([]plots.Series, len(sizes))
	faults := make([][]fault.Interval, len(sizes))
	var notes []string
	top := 0.0 // the largest rate of both, which both charts reach
	for i, n := range sizes {
		e, err := newEnv(p.Seed, n, raft.PaperConfig(), network())
		if err != nil {
			return nil, err
		}
		if err := e.settle(e.clerk()); err != nil {
			return nil, err
		}
		start := e.w.Now()
		pt := e.startPutters(clients, 1)
		e.w.Run(killAt)
		leader, _ := e.leader()
		if err := e.m.Apply(fault.Fault{Kind: fault.Kill, Host: leader}); err != nil {
			return nil, err
		}
		e.w.Run(backAt - killAt)
		if err := e.m.Apply(fault.Fault{Kind: fault.Restart, Host: leader}); err != nil {
			return nil, err
		}
		e.w.Run(length - backAt)
		pt.stop()

		s := &series[i]
		s.Name = "Puts per second"
		counts := make([]int, int(length/bin))
		for _, at := range pt.completed {
			if k := int((at - start) / bin); k < len(counts) {
				counts[k]++
			}
		}
		for k, c := range counts {
			t := (time.Duration(k) * bin).Seconds()
			rate := float64(c) / bin.Seconds()
			tab.Add(n, t, rate)
			s.X, s.Y = append(s.X, t), append(s.Y, rate)
			top = max(top, rate)
		}
		faults[i] = e.m.Log().Shift(-start).Intervals(length)
		for k := range faults[i] {
			faults[i][k].Label = "leader " + faults[i][k].Label
		}
		notes = append(notes, fmt.Sprintf("%d servers: no Put completed for %v after the kill", n, gap(pt.completed, start+killAt).Round(time.Millisecond)))
	}
	var charts []*plots.Chart
	for i, n := range sizes {
		a := plots.Axes{Title: fmt.Sprintf("Put throughput around a leader failure, %d servers", n), X: "time (s)", Y: "Puts per second", YMax: top}
		ch, err := plots.TimeSeries(a, faults[i], series[i])
		if err != nil {
			return nil, err
		}
		charts = append(charts, ch)
	}
	caption := fmt.Sprintf("Puts per second (%v bins) from %d clients around a leader failure, for 5 servers (top) and 31 (bottom), on one scale: "+
		"each run kills its leader at %v and restarts it at %v (shaded; paper profile, elections after %s).", bin, clients, killAt, backAt, electionWindow(raft.PaperConfig()))
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "leader-failure", Caption: caption, Charts: charts}}}, nil
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
		Description: "Put throughput and latency against value size (1 KB to 1 MB), 31 servers, 10 clients, 1 Gbit/s uplinks, our Raft and the paper's",
		Seed:        1,
		Run:         runValueSize,
	}
}

// joinAnd joins words as a list in a sentence: "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// noLatency is why a value size at which no Put completed has no latency.
const noLatency = "no Put completed in 5 s, so there is no latency to report"

func runValueSize(p Params) (*Result, error) {
	const servers, clients = 31, 10
	var sizes []int
	for kb := 1; kb <= 1024; kb *= 2 {
		sizes = append(sizes, kb<<10)
	}
	modes := paperModes()
	type point struct {
		puts int
		st   plots.Stats
	}
	points := make([]point, len(modes)*len(sizes))
	err := parallel(len(points), func(i int) error {
		m, size := modes[i/len(sizes)], sizes[i%len(sizes)]
		// Snapshots at a few rounds of every client's value: often enough
		// to bound the logs, seldom enough to cost less than the values.
		e, err := newEnvSnapshot(p.Seed, servers, m.rc, network(), max(snapshotAt, 4*clients*size))
		if err != nil {
			return err
		}
		if err := e.settle(e.clerk()); err != nil {
			return err
		}
		pt := e.startPutters(clients, size)
		e.w.Run(5 * time.Second)
		pt.stop()
		points[i] = point{len(pt.completed), plots.Summarize(millis(pt.latency))}
		return nil
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("raft", "value_bytes", "puts_in_5s", "latency_mean_ms", "latency_p5_ms", "latency_p95_ms", "latency_missing")
	var tputs, lats []plots.Band
	var notes, missing []string
	for mi, m := range modes {
		tput, lat := plots.Band{Name: m.name}, plots.Band{Name: m.name}
		var none []string // the sizes at which no Put completed
		for si, size := range sizes {
			pt := points[mi*len(sizes)+si]
			x := float64(size) / 1024
			if pt.puts == 0 {
				tab.Add(m.name, size, pt.puts, "", "", "", noLatency)
				none = append(none, fmt.Sprintf("%v KB", x))
			} else {
				tab.Add(m.name, size, pt.puts, pt.st.Mean, pt.st.P5, pt.st.P95, "")
			}
			if size == 1<<10 || size == 128<<10 || size == 1<<20 {
				if pt.puts == 0 {
					notes = append(notes, fmt.Sprintf("%s, %v KB: 0 Puts in 5 s; latency missing: %s", m.name, x, noLatency))
				} else {
					notes = append(notes, fmt.Sprintf("%s, %v KB: %d Puts in 5 s, %.3g ms mean", m.name, x, pt.puts, pt.st.Mean))
				}
			}
			if pt.puts > 0 {
				tput.X, tput.Mid = append(tput.X, x), append(tput.Mid, float64(pt.puts))
				lat.X, lat.Mid = append(lat.X, x), append(lat.Mid, pt.st.Mean)
				lat.Low, lat.High = append(lat.Low, pt.st.P5), append(lat.High, pt.st.P95)
			}
		}
		tputs, lats = append(tputs, tput), append(lats, lat)
		if len(none) > 0 {
			missing = append(missing, fmt.Sprintf("%q completed no Put at %s", m.name, joinAnd(none)))
		}
	}
	gaps := ""
	if len(missing) > 0 {
		gaps = " Missing from both charts, since a count of 0 has no place on a logarithmic axis and no Put means no latency: " + strings.Join(missing, "; ") + "."
	}
	f4, err := plots.Lines(plots.Axes{Title: "Puts in 5 s against value size (31 servers, 10 clients)", X: "value size (KB, log scale)", Y: "successful Puts (log scale)", LogX: true, LogY: true}, tputs...)
	if err != nil {
		return nil, err
	}
	f5, err := plots.Lines(plots.Axes{Title: "Put latency against value size (31 servers, 10 clients)", X: "value size (KB, log scale)", Y: "latency (ms, log scale)", LogX: true, LogY: true}, lats...)
	if err != nil {
		return nil, err
	}
	// The paper's Raft: the largest size at which it still completed a
	// Put, its mean latencies up to there, and the size at which a
	// heartbeat's batch no longer crosses the leader's uplink within the
	// heartbeat.
	ours, theirs := lats[0], lats[1]
	heartbeat := modes[1].rc.Heartbeat
	crossing := heartbeat.Seconds() * gigabit / float64(clients*(servers-1)) / 1024
	lastKB := theirs.X[len(theirs.X)-1]
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{
		{Name: "value-size-throughput", Caption: fmt.Sprintf("Successful Puts in 5 s against value size, 1 KB to 1 MB (paper profile): the leader's %s uplink carries each value to %d followers. "+
			"Ours fills the uplink from the smallest values on, so its Puts fall in proportion to the size; the paper's sends one batch per %v heartbeat, "+
			"so its Puts stay flat until a heartbeat's batch (%d values to %d followers) no longer crosses the uplink within the heartbeat, past %.0f KB a value; "+
			"it completed Puts up to %v KB and none beyond: there a batch holds the uplink longer than an election timeout, the heartbeats queue behind it, the followers elect one leader after another. "+
			"Both axes are logarithmic: the counts span four orders of magnitude.", uplinkSpeed(), servers-1, heartbeat, clients, servers-1, crossing, lastKB) + gaps, Charts: []*plots.Chart{f4}},
		{Name: "value-size-latency", Caption: fmt.Sprintf("Put latency against value size: mean, with the p5-p95 range shaded, on logarithmic axes. "+
			"The paper's Raft (Fig. 5) stays near its heartbeat (%.0f-%.0f ms) up to %v KB and completes no Put beyond; ours starts %.0f times lower and climbs with the size.",
			slices.Min(theirs.Mid), slices.Max(theirs.Mid), lastKB, theirs.Mid[0]/ours.Mid[0]) + gaps, Charts: []*plots.Chart{f5}},
	}}, nil
}
