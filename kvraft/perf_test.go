package kvraft_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim/simtest"
)

// rtt is the network's mean round trip.
func rtt(cfg *kvtest.Harness) time.Duration {
	p := cfg.Net().Params()
	return 2 * (p.Latency + p.Jitter/2)
}

// latencies returns the virtual latencies of the completed operations of
// the given kind, from the history, sorted.
func latencies(cfg *kvtest.Harness, kind linearize.KVKind, since int) []time.Duration {
	var ds []time.Duration
	for _, op := range cfg.History().Operations()[since:] {
		if op.Input.(linearize.KVInput).Kind == kind && op.Output != nil {
			ds = append(ds, time.Duration(op.Return-op.Call))
		}
	}
	slices.Sort(ds)
	return ds
}

func percentile(ds []time.Duration, p float64) time.Duration {
	return ds[int(p*float64(len(ds)-1))]
}

// TestLatency measures Put and Get latency, in network round trips, for
// one clerk and each read mode, and checks that a write takes about two
// round trips (clerk to leader, leader to followers) and a lease read one.
func TestLatency(t *testing.T) {
	t.Parallel()
	modes := []struct {
		name    string
		mode    rsm.ReadMode
		maxGets float64 // median Get latency allowed, in RTTs
	}{{"log", rsm.ReadLog, 2.5}, {"rsm.ReadIndex", rsm.ReadIndex, 2.5}, {"lease", rsm.ReadLease, 1.5}}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			simtest.Run(t, kvtest.DefaultSeeds, func(t *testing.T, seed int64) simtest.Result {
				opts := kvraft.DefaultOptions()
				opts.Reads = m.mode
				cfg := makeConfig(t, seed, 3, false, -1, opts)
				ck := cfg.MakeClient(cfg.All())
				ck.Put("warm", "up")
				since := cfg.History().Len()
				for i := range 200 {
					ck.Put("k"+strconv.Itoa(i%10), strconv.Itoa(i))
					ck.Get("k" + strconv.Itoa(i%10))
				}
				rtt := rtt(cfg)
				puts, gets := latencies(cfg, linearize.Put, since), latencies(cfg, linearize.Get, since)
				inRTT := func(d time.Duration) float64 { return float64(d) / float64(rtt) }
				t.Logf("reads=%s RTT=%v: Put median %.2f p99 %.2f RTTs; Get median %.2f p99 %.2f RTTs", m.name, rtt,
					inRTT(percentile(puts, 0.5)), inRTT(percentile(puts, 0.99)), inRTT(percentile(gets, 0.5)), inRTT(percentile(gets, 0.99)))
				if r := inRTT(percentile(puts, 0.5)); r > 2.5 {
					t.Errorf("median Put takes %.2f RTTs; want at most 2.5", r)
				}
				if r := inRTT(percentile(gets, 0.5)); r > m.maxGets {
					t.Errorf("median Get takes %.2f RTTs; want at most %v", r, m.maxGets)
				}
				cfg.CheckLinearizable()
				return cfg.Result()
			})
		})
	}
}

// TestThroughput runs 1, 10 and 100 clerks, each with one operation
// outstanding at a time (half Puts, half Gets on 100 keys), for 50
// virtual milliseconds (about 45 operations of the one clerk; 100 clerks
// do 86–87 times as many on seeds 1–3, as over a quarter of a second, at
// a third of the cost), and checks that batching lets 100 clerks do at
// least 50 times the operations of one.
func TestThroughput(t *testing.T) {
	t.Parallel()
	tput := map[int]float64{}
	for _, n := range []int{1, 10, 100} {
		t.Run(fmt.Sprintf("clients=%d", n), func(t *testing.T) {
			simtest.Run(t, kvtest.DefaultSeeds[:1], func(t *testing.T, seed int64) simtest.Result {
				cfg := makeConfig(t, seed, 3, false, -1, kvraft.DefaultOptions())
				cfg.MakeClient(cfg.All()).Put("warm", "up")
				stop, done := false, 0
				for c := range n {
					ck := cfg.MakeClient(cfg.All())
					var step func()
					step = func() {
						if stop {
							return
						}
						key := strconv.Itoa(cfg.RandInt(100))
						if cfg.RandInt(2) == 0 {
							ck.PutAsync(key, strconv.Itoa(c), func() { done++; step() })
						} else {
							ck.GetAsync(key, func(string) { done++; step() })
						}
					}
					step()
				}
				const measure = 50 * time.Millisecond
				cfg.Sleep(measure)
				stop = true
				tput[n] = float64(done) / measure.Seconds()
				t.Logf("%d clients: %.0f ops per virtual second", n, tput[n])
				cfg.Sleep(time.Second)
				cfg.CheckLinearizable()
				return cfg.Result()
			})
		})
	}
	if ratio := tput[100] / tput[1]; ratio < 50 {
		t.Errorf("100 clients do %.1f times the operations of one; want at least 50", ratio)
	} else {
		t.Logf("100 clients do %.1f times the operations of one", ratio)
	}
}
