package experiments

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/plots"
)

func frangipaniContentionExperiment() Experiment {
	return Experiment{
		Name:        "frangipani-contention",
		Reproduces:  "Frangipani report, the drawback it names: a lock circulating among clients that share a file",
		Description: "operations per second against 1 to 50 clients sharing one key, back to back or pausing up to 5 ms, on kvraft replicating on heartbeats or on Start and on frangipani with locks only or as it is here",
		Seed:        1,
		Full:        "counts each point over 5 s instead of 1 s",
		Run:         runFrangipaniContention,
	}
}

// contentionScale is what frangipani-contention measures: clients sharing
// one key, pausing up to each of pauses between operations, each point
// over window.
type contentionScale struct {
	clients []int
	pauses  []time.Duration
	window  time.Duration
}

func runFrangipaniContention(p Params) (*Result, error) {
	sc := contentionScale{clients: []int{1, 2, 5, 10, 20, 50}, pauses: []time.Duration{0, 5 * time.Millisecond}, window: time.Second}
	if p.Full {
		sc.window = 5 * time.Second
	}
	return frangipaniContention(p.Seed, sc)
}

func frangipaniContention(seed int64, sc contentionScale) (*Result, error) {
	systems := frangipaniSystems()
	per := len(systems) * len(sc.clients)
	loads := make([]load, len(sc.pauses)*per)
	err := parallel(len(loads), func(i int) error {
		pause, s, n := sc.pauses[i/per], systems[i%per/len(sc.clients)], sc.clients[i%len(sc.clients)]
		e, err := s.start(seed, 3, -1)
		if err != nil {
			return err
		}
		clients, err := e.newClients(n)
		if err != nil {
			return err
		}
		if err := e.settle(clients[0]); err != nil {
			return err
		}
		loads[i] = e.run(clients, workload.Spec{Mix: basicMix, Keys: workload.Uniform(1), Think: pause}, sc.window)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("pause_max_ms", "system", "clients", "ops", "ops_per_s", "vs_kvraft_on_start")
	var charts []*plots.Chart
	var notes, findings []string
	for pi, pause := range sc.pauses {
		rate := func(si, ci int) float64 { return loads[pi*per+si*len(sc.clients)+ci].perSecond() }
		findings = append(findings, contentionFindings(pause, sc.clients, rate))
		var bands []plots.Band
		for si, s := range systems {
			b := plots.Band{Name: s.name}
			// Each system's markers sit a little aside, so that equal
			// values do not hide each other.
			shift := math.Pow(10, 0.02*(float64(si)-float64(len(systems)-1)/2))
			var rates []string
			for ci, n := range sc.clients {
				l := loads[pi*per+si*len(sc.clients)+ci]
				tab.Add(millis([]time.Duration{pause})[0], s.name, n, l.ops, l.perSecond(), l.perSecond()/rate(1, ci))
				b.X, b.Mid = append(b.X, float64(n)*shift), append(b.Mid, l.perSecond())
				rates = append(rates, fmt.Sprintf("%.0f", l.perSecond()))
			}
			bands = append(bands, b)
			notes = append(notes, fmt.Sprintf("%s, %s: %v operations per second with %v clients", pauseName(pause), s.name, rates, sc.clients))
		}
		title := fmt.Sprintf("(%c) clients %s", 'a'+pi, pauseName(pause))
		ch, err := plots.Lines(plots.Axes{Title: title, X: "clients sharing one key (log)", Y: "operations per second (log)", LogX: true, LogY: true}, bands...)
		if err != nil {
			return nil, err
		}
		charts = append(charts, ch)
	}
	caption := fmt.Sprintf("Operations per virtual second of %v clients sharing one key (Gets, Puts and Appends alike; 3 servers, %s uplinks, %s of CPU per message), over %v (`-full`: 5 s), "+
		"on kvraft replicating on %v heartbeats (the Frangipani report's \"My KV Raft\") or on Start, and on frangipani taking the key's lock for every operation (locks only, the report's design) "+
		"or performing at the lock service the operations of a key that moves from client to client unless a client works it back to back (as it is here). "+
		"Both axes are logarithmic; each system's markers are shifted a little sideways. %s",
		sc.clients, uplinkSpeed(), messageCPU(), sc.window, kvHeartbeat.heartbeat, strings.Join(findings, " "))
	return &Result{Table: tab, Notes: notes, Figures: []plots.Figure{{Name: "frangipani-contention", Caption: caption, Charts: charts}}}, nil
}

// pauseName says how clients pause between operations.
func pauseName(pause time.Duration) string {
	if pause == 0 {
		return "working back to back"
	}
	return fmt.Sprintf("pausing up to %g ms between operations", millis([]time.Duration{pause})[0])
}

// contentionFindings says, for one panel, where frangipani with locks
// only falls below kvraft on Start, and how frangipani as it is compares
// with both; rate(system, client count) indexes frangipaniSystems and
// clients.
func contentionFindings(pause time.Duration, clients []int, rate func(si, ci int) float64) string {
	const start, locks, fr = 1, 2, 3
	last := len(clients) - 1
	below := -1
	for ci := range clients {
		if rate(locks, ci) < rate(start, ci) {
			below = ci
			break
		}
	}
	lo, hi := math.Inf(1), 0.0
	for ci := 1; ci <= last; ci++ {
		r := rate(fr, ci) / max(rate(start, ci), rate(locks, ci))
		lo, hi = min(lo, r), max(hi, r)
	}
	s := fmt.Sprintf("With clients %s, frangipani with locks only does %.0f operations a second with one client and %.0f with %d, kvraft on Start %.0f with %d: ",
		pauseName(pause), rate(locks, 0), rate(locks, last), clients[last], rate(start, last), clients[last])
	if below < 0 {
		s += "each holder serves a burst from its cache before it hands the lock over (up to MaxHold, 1 ms), and caching wins at every count."
	} else {
		s += fmt.Sprintf("each hand-over of the lock serves about one operation, the lock's circulation caps the throughput, and caching loses from %d clients on.", clients[below])
	}
	return s + fmt.Sprintf(" Frangipani as it is does %.2f–%.2f times the better of the two from %d clients on.", lo, hi, clients[1])
}
