package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/sim"
)

func concurrentMapExperiment() Experiment {
	return Experiment{
		Name:       "txn-concurrent-map",
		Reproduces: "Raft-based KV with transactions paper, Table 1 (its concurrent map)",
		Description: "time per write to a map under one lock and under fine-grained locks (a global lock and one per key), the writer holding its lock for 1 ns, 1 µs or 1 ms, " +
			"a model in virtual time beside the paper's numbers (BenchmarkConcurrentMap measures the real thing)",
		Seed: 1,
		Run:  runConcurrentMap,
	}
}

// The paper's Table 1: ns per write at each waiting time, one lock and
// fine-grained.
var (
	concMapWaits = []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond}
	concMapPaper = map[string][]float64{
		"one":  {2339, 7577, 1_214_000},
		"fine": {364, 443, 408},
	}
	concMapLocks     = []string{"one", "fine"}
	concMapLockNames = map[string]string{"one": "one lock", "fine": "fine-grained"}
)

// span writes a sample's range to the nanosecond: "364–443", or "364"
// if that is all it has.
func span(s plots.Stats) string {
	lo, hi := fmt.Sprintf("%.0f", s.Min), fmt.Sprintf("%.0f", s.Max)
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// nanos returns d in nanoseconds.
func nanos(d time.Duration) float64 { return float64(d.Nanoseconds()) }

// concMapCosts are the model's two costs, fitted to the paper's 1 ns row:
// a write holds the map's global lock for mapCost (the paper's
// fine-grained write, whose writers queue only there), and a sleep lasts
// its wait plus a wake-up of wake on average (the paper's one-lock write,
// less mapCost and the nanosecond).
func concMapCosts() (mapCost, wake time.Duration) {
	mapCost = time.Duration(concMapPaper["fine"][0])
	return mapCost, time.Duration(concMapPaper["one"][0]) - mapCost - concMapWaits[0]
}

// A concMapScale is what a run of the model measures: each count of
// writers at once, counting opsPer writes a writer (at least minOps in
// all) once as many have run to warm up.
type concMapScale struct {
	writers        []int
	opsPer, minOps int
}

func runConcurrentMap(p Params) (*Result, error) {
	return concurrentMap(p.Seed, concMapScale{writers: []int{1, 10, 100, 1000, 10_000}, opsPer: 3, minOps: 300})
}

// A concMapRun is one point of the model: writers at once, each holding
// its lock for wait, on the map with one lock or fine-grained locks; ops
// writes counted, which took took.
type concMapRun struct {
	writers int
	wait    time.Duration
	lock    string
	ops     int
	took    time.Duration
}

// nsPerOp is the run's virtual nanoseconds per write, as Go's benchmarks
// count them: the time the writes took over their number. (A benchmark
// counts so many that its start and end do not show; the model counts
// only once every writer is under way, and up to a write done.)
func (r concMapRun) nsPerOp() float64 { return float64(r.took) / float64(r.ops) }

func concurrentMap(seed int64, sc concMapScale) (*Result, error) {
	mapCost, wake := concMapCosts()
	var runs []concMapRun
	for _, n := range sc.writers {
		for _, wait := range concMapWaits {
			for _, lock := range concMapLocks {
				runs = append(runs, concMapRun{writers: n, wait: wait, lock: lock, ops: max(sc.minOps, sc.opsPer*n)})
			}
		}
	}
	for i := range runs {
		var err error
		if runs[i].took, err = concMapModel(seed, runs[i], mapCost, wake); err != nil {
			return nil, err
		}
	}
	most := slices.Max(sc.writers)
	tab := plots.NewTable("writers", "wait_ns", "lock", "writes", "virtual_s", "ns_per_write", "paper_ns_per_write")
	table := map[string][]float64{} // the model at most writers, as the paper's table
	for _, r := range runs {
		paper := math.NaN()
		if r.writers == most {
			paper = concMapPaper[r.lock][slices.Index(concMapWaits, r.wait)]
			table[r.lock] = append(table[r.lock], r.nsPerOp())
		}
		tab.Add(r.writers, r.wait.Nanoseconds(), r.lock, r.ops, r.took.Seconds(), r.nsPerOp(), cell(paper))
	}

	waitNames := []string{"1 ns held", "1 µs held", "1 ms held"}
	micros := func(name string, ns []float64) plots.Samples {
		s := plots.Samples{Name: name}
		for _, v := range ns {
			s.Values = append(s.Values, v/1000)
		}
		return s
	}
	bars, err := plots.Bars(plots.Axes{Title: fmt.Sprintf("Paper 000's Table 1 and the model (%d writers at once)", most), Y: "µs per write (log)", LogY: true}, waitNames,
		micros("one lock, paper", concMapPaper["one"]), micros("one lock, model", table["one"]),
		micros("fine-grained, paper", concMapPaper["fine"]), micros("fine-grained, model", table["fine"]))
	if err != nil {
		return nil, err
	}
	var bands []plots.Band
	for _, lock := range concMapLocks {
		for wi, wait := range concMapWaits {
			b := plots.Band{Name: fmt.Sprintf("%s, %s", concMapLockNames[lock], strings.TrimSuffix(waitNames[wi], " held"))}
			for _, r := range runs {
				if r.lock == lock && r.wait == wait {
					b.X, b.Mid = append(b.X, float64(r.writers)), append(b.Mid, r.nsPerOp()/1000)
				}
			}
			bands = append(bands, b)
		}
	}
	lines, err := plots.Lines(plots.Axes{Title: "The model against writers at once", X: "writers at once (log)", Y: "µs per write (log)", LogX: true, LogY: true}, bands...)
	if err != nil {
		return nil, err
	}

	// At the longest wait, fine-grained with fewer writers than most: a
	// write's whole cycle shared among the writers.
	fewer := most
	for _, n := range sc.writers {
		if n < most {
			fewer = n
		}
	}
	slow := runs[slices.IndexFunc(runs, func(r concMapRun) bool { return r.lock == "fine" && r.wait == concMapWaits[2] && r.writers == fewer })]
	cycle := nanos(mapCost + concMapWaits[2] + wake)
	fine, paperFine := plots.Summarize(table["fine"]), plots.Summarize(concMapPaper["fine"])
	over := func(k int) float64 { return concMapPaper["one"][k] - nanos(concMapWaits[k]+mapCost) }
	caption := fmt.Sprintf("Paper 000's Table 1 (time per concurrent write to its map, the writer holding its lock for a waiting time, "+
		"its stand-in for the two phases of 2PC) beside a model of it in virtual time: a function of its seed, unlike a measurement. "+
		"The model: %d writers at once, each writing a key of its own over and over; a write holds the map's global lock for %.0f ns; a sleep lasts its wait and a wake-up of %.3g µs on average "+
		"(uniform from half that to one and a half times, drawn from the seed). With one lock the writer sleeps holding the global lock; fine-grained, it takes its key's lock, "+
		"lets the global lock go and sleeps holding only its key's. The two costs are fitted to the paper's 1 ns row (its fine-grained write, and its one-lock write less that); the other rows are the model's predictions. "+
		"One lock: %.3g µs at 1 µs and %.4g µs at 1 ms (the paper's %.3g and %.4g: by the same account its sleeps overran their wait by %.3g µs at 1 µs and %.0f µs at 1 ms, not by a fixed %.3g µs). "+
		"Fine-grained: %s ns at every wait (the paper's %s): the writers queue only for the global lock, so it costs %.0f ns a write however long the wait, once enough write at once. "+
		"Below, the model against writers at once: at 1 ms, fine-grained takes %.0f ns a write with %d writers and %.0f with %d, a write's whole %.4g µs shared among the writers until the global lock's %.0f ns is the larger, "+
		"from about %.0f writers on: the paper's benchmark, which does not say how many wrote at once, had at least about that many. "+
		"Go's own maps and mutexes: BenchmarkConcurrentMap measures the same two maps in wall time on the machine it runs on; the README gives its command and what it measured. Both value axes are logarithmic.",
		most, nanos(mapCost), nanos(wake)/1000,
		table["one"][1]/1000, table["one"][2]/1000, concMapPaper["one"][1]/1000, concMapPaper["one"][2]/1000, over(1)/1000, over(2)/1000, nanos(wake)/1000,
		span(fine), span(paperFine), nanos(mapCost),
		slow.nsPerOp(), fewer, table["fine"][2], most, cycle/1000, nanos(mapCost), cycle/nanos(mapCost))

	var notes []string
	for _, lock := range concMapLocks {
		notes = append(notes, fmt.Sprintf("%s, %d writers: %.0f ns a write at 1 ns, 1 µs and 1 ms held (the paper's %.0f)", concMapLockNames[lock], most, table[lock], concMapPaper[lock]))
	}
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "txn-concurrent-map", Caption: caption, Charts: []*plots.Chart{bars, lines}}}}, nil
}

// concMapModel runs r's writers in a world from seed for r.ops writes to
// warm up, then r.ops more, and returns the virtual time from the first
// r.ops writes' completion to the last's. A write takes
// the global lock (a FIFO queue, as every writer waits its turn), holds it
// for mapCost, and then, with one lock, sleeps holding it; fine-grained,
// it takes its key's lock, lets the global one go and sleeps holding the
// key's. A sleep lasts r.wait and a wake-up drawn from the world's
// generator, wake on average.
func concMapModel(seed int64, r concMapRun, mapCost, wake time.Duration) (time.Duration, error) {
	w := sim.NewWorld(seed)
	global := &modelLock{}
	done, start := 0, time.Duration(0)
	sleep := func() time.Duration { return r.wait + w.RandDuration(wake/2, wake*3/2) }
	for range r.writers {
		key := &modelLock{}
		var write func()
		wrote := func() {
			done++
			if done == r.ops {
				start = w.Now()
			}
			if done < 2*r.ops {
				write()
			}
		}
		write = func() {
			global.acquire(func() {
				if r.lock == "one" {
					w.After(mapCost+sleep(), func() { global.release(); wrote() })
					return
				}
				w.After(mapCost, func() {
					key.acquire(func() {
						global.release()
						w.After(sleep(), func() { key.release(); wrote() })
					})
				})
			})
		}
		write()
	}
	if !w.RunUntil(func() bool { return done >= 2*r.ops }, time.Hour) {
		return 0, fmt.Errorf("%d writers, %s lock, %v held: %d of %d writes in an hour of virtual time", r.writers, r.lock, r.wait, done, 2*r.ops)
	}
	return w.Now() - start, nil
}

// A modelLock is a mutex in virtual time: held or not, with the writers
// waiting for it in the order they came.
type modelLock struct {
	held    bool
	waiting []func()
}

// acquire calls then once the lock is the caller's: now, if it is free.
func (l *modelLock) acquire(then func()) {
	if l.held {
		l.waiting = append(l.waiting, then)
		return
	}
	l.held = true
	then()
}

// release hands the lock to the writer that has waited longest, or frees it.
func (l *modelLock) release() {
	if len(l.waiting) == 0 {
		l.held = false
		return
	}
	next := l.waiting[0]
	l.waiting = l.waiting[1:]
	next()
}
