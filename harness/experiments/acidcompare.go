package experiments

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
)

func acidCompareExperiment() Experiment {
	return Experiment{
		Name:        "txn-acid-vs-2pl",
		Reproduces:  "both transaction papers' designs side by side (Raft-based KV with transactions and ACID distributed KV papers)",
		Description: "throughput, failed transactions and latency (mean, p95) of write transactions against contention (10 000 to 10 keys), lock waits vs write intents, presumed abort vs presumed commit, with and without a coordinator-leader kill",
		Seed:        1,
		Full:        "measures each point over 10 s instead of 1 s",
		Run:         runAcidCompare,
	}
}

// compareKeys are the keyspaces of txn-acid-vs-2pl, from no contention to
// much.
func compareKeys() []int { return []int{10_000, 1000, 100, 10} }

// compareClients is how many clients txn-acid-vs-2pl runs, each one write
// transaction after another.
const compareClients = 8

// compareWindow is how long txn-acid-vs-2pl counts each point: 1 s (32 runs:
// about 4 CPU seconds), 10 s with -full; a kill falls a quarter of the way
// in.
func compareWindow(full bool) time.Duration {
	if full {
		return 10 * time.Second
	}
	return time.Second
}

// compareDesign returns variant v of shardtxn's options; paper 003's whole
// design (the last variant) also finds leaders through the replica
// manager, as paper 000's (the first) redirects.
func compareDesign(v txntest.Variant, last bool) shardtxn.Config {
	cfg := v.With(shardtxn.DefaultConfig())
	if last {
		cfg.Discovery = shardtxn.ReplicaManager
	}
	return cfg
}

// comparePoint runs compareClients clients of write transactions of 3
// random keys of keys on design cfg (3 shards, 3 coordinators, every
// replica on a host of its own) for window, killing the coordinator
// leader's host a quarter of the way in if kill.
func comparePoint(seed int64, cfg shardtxn.Config, keys int, kill bool, window time.Duration) (acidRate, error) {
	e, err := newAcidEnv(seed, 3, false, 3, cfg)
	if err != nil {
		return acidRate{}, err
	}
	var faultErr error
	if kill {
		e.w.After(window/4, func() {
			l, ok := e.c.Leader(0)
			if !ok {
				faultErr = fmt.Errorf("no coordinator leader to kill")
				return
			}
			faultErr = e.c.Apply(fault.Fault{Kind: fault.Kill, Host: e.c.HostOf(0, l)})
		})
	}
	r := acidThroughputOf(e, compareClients, randomTxn(e, 3, keys, true), window)
	return r, faultErr
}

func runAcidCompare(p Params) (*Result, error) {
	variants := txntest.Variants()
	keys := compareKeys()
	window := compareWindow(p.Full)
	kills := []bool{false, true}
	n := len(variants) * len(keys)
	rates := make([]acidRate, 2*n) // by kill, variant, keys
	err := parallel(len(rates), func(i int) error {
		vi, ki := (i%n)/len(keys), i%len(keys)
		r, err := comparePoint(p.Seed, compareDesign(variants[vi], vi == len(variants)-1), keys[ki], kills[i/n], window)
		rates[i] = r
		return err
	})
	if err != nil {
		return nil, err
	}
	tab := plots.NewTable("coordinator_leader_killed", "conflicts", "presumption", "discovery", "keys", "committed_per_s", "failed_pct", "latency_mean_ms", "latency_p95_ms", "latency_max_ms")
	var figures []plots.Figure
	var notes []string
	for k, kill := range kills {
		panels := []struct {
			title, y string
			of       func(acidRate) float64
		}{
			{"(a) throughput", "committed per second", func(r acidRate) float64 { return r.perSecond }},
			{"(b) failed transactions", "% of those that ended", func(r acidRate) float64 { return r.failedPct() }},
			{"(c) mean latency", "ms", func(r acidRate) float64 { return r.latency.Mean }},
			{"(d) p95 latency", "ms", func(r acidRate) float64 { return r.latency.P95 }},
		}
		var charts []*plots.Chart
		for _, panel := range panels {
			var bands []plots.Band
			for vi, v := range variants {
				b := plots.Band{Name: variantName(v, vi, len(variants))}
				for ki, nk := range keys {
					b.X, b.Mid = append(b.X, float64(nk)), append(b.Mid, panel.of(rates[k*n+vi*len(keys)+ki]))
				}
				bands = append(bands, b)
			}
			ch, err := plots.Lines(plots.Axes{Title: panel.title, X: "keys the clients share (log scale, contention growing to the right)", Y: panel.y, LogX: true, ReverseX: true}, bands...)
			if err != nil {
				return nil, err
			}
			charts = append(charts, ch)
		}
		for vi, v := range variants {
			cfg := compareDesign(v, vi == len(variants)-1)
			for ki, nk := range keys {
				r := rates[k*n+vi*len(keys)+ki]
				tab.Add(kill, cfg.Conflicts, cfg.Presumption, cfg.Discovery, nk, r.perSecond, r.failedPct(), r.latency.Mean, r.latency.P95, r.latency.Max)
			}
			lo, hi := rates[k*n+vi*len(keys)], rates[k*n+vi*len(keys)+len(keys)-1]
			notes = append(notes, fmt.Sprintf("%s%s: %.0f → %.0f committed/s, %.1f → %.1f %% failed, mean %.1f → %.1f ms, p95 %.1f → %.1f ms (10 000 → 10 keys)",
				v, killNote(kill), lo.perSecond, hi.perSecond, lo.failedPct(), hi.failedPct(), lo.latency.Mean, hi.latency.Mean, lo.latency.P95, hi.latency.P95))
		}
		name, what := "txn-acid-vs-2pl", "no faults"
		if kill {
			name, what = "txn-acid-vs-2pl-kill", fmt.Sprintf("the coordinator leader's host killed %v in (shown: the whole window)", window/4)
		}
		caption := fmt.Sprintf("Paper 000's and paper 003's designs on one workload, %s: %d clients each running write transactions of 3 Sets of random keys, one after another for %v (`-full`: 10 s), "+
			"against the number of keys they share, on 3 shards and 3 coordinators of 3 replicas, every replica on a host of its own. "+
			"The four variants cross lock waits (paper 000: a prepare waits %s for a held key, then votes no) with write intents (paper 003: a prepare meeting a pending transaction's intent votes no at once) "+
			"and presumed abort with presumed commit; paper 003's whole design (write-intents/presumed-commit) also finds leaders through its replica manager. "+
			"A failed transaction is one the client heard abort (it does not retry); latencies are of every transaction that ended. %s%s",
			what, compareClients, window, lockWaits(shardtxn.DefaultConfig()), compareVerdict(variants, keys, rates[k*n:(k+1)*n]), killCaption(kill))
		figures = append(figures, plots.Figure{Name: name, Caption: caption, Charts: charts})
	}
	return &Result{Table: tab, Notes: notes, Figures: figures}, nil
}

// variantName names variant vi of n in a legend, with the paper whose
// whole design it is.
func variantName(v txntest.Variant, vi, n int) string {
	switch vi {
	case 0:
		return v.String() + " (paper 000)"
	case n - 1:
		return v.String() + " (paper 003)"
	}
	return v.String()
}

// lockWaits is how long a prepare of cfg waits for a held key, as
// captions give it ("20-40 ms"): a wait drawn from LockWait to twice it.
func lockWaits(cfg shardtxn.Config) string {
	return fmt.Sprintf("%d-%d ms", cfg.LockWait.Milliseconds(), 2*cfg.LockWait.Milliseconds())
}

// killCaption says what to read in the kill's figure.
func killCaption(kill bool) string {
	if !kill {
		return "Presumed commit saves the coordinator a log entry per commit, off the client's path: without faults the two presumptions measure alike, and what separates the designs is how a prepare meets a held key. " +
			"Lock waits lose " + lockWaits(shardtxn.DefaultConfig()) + " per conflict and then abort anyway under heavy contention; intents abort at once, so their clients fail more often but start their next transaction sooner and commit more in all."
	}
	return "Every client whose transaction the dead leader held waits for its clerk's " + fmt.Sprintf("%d ms", txntest.ClerkTimeout.Milliseconds()) + " timeout and a new leader (the latency's max, in the CSV); a client never sees such a transaction fail. " +
		"The p95 is over the transactions that ended: under write intents many more end (fast aborts), so the few that the kill stalled fall below it; under lock waits with 10 keys they make the tail. " +
		"Transactions still waiting when the window closes are not counted, so the throughput with a kill swings from seed to seed with how long the election and the new leader's recovery take."
}

// killNote is the notes' mark of a run with a kill.
func killNote(kill bool) string {
	if kill {
		return ", coordinator leader killed"
	}
	return ""
}

// compareVerdict says who wins where: at the most and the least
// contention, the variants with the most commits per second and the
// lowest mean latency. rates are by variant, then keys.
func compareVerdict(variants []txntest.Variant, keys []int, rates []acidRate) string {
	out := ""
	for _, ki := range []int{0, len(keys) - 1} {
		best, fast := 0, 0
		for vi := range variants {
			r := rates[vi*len(keys)+ki]
			if r.perSecond > rates[best*len(keys)+ki].perSecond {
				best = vi
			}
			if r.latency.Mean < rates[fast*len(keys)+ki].latency.Mean {
				fast = vi
			}
		}
		b, f := rates[best*len(keys)+ki], rates[fast*len(keys)+ki]
		out += fmt.Sprintf("With %d keys, %s commits the most (%.0f a second, %.1f %% failed) and %s answers fastest (mean %.1f ms, %.1f %% failed). ",
			keys[ki], variants[best], b.perSecond, b.failedPct(), variants[fast], f.latency.Mean, f.failedPct())
	}
	return out
}
