package txncheck

import (
	"flag"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// benchHistories caches the generated histories across runs (-count).
var benchHistories = map[int]*History{}

// benchCheck checks a generated valid history of n transactions (4 micro-ops
// each, 100 keys, 10 processes) under strict serializability: every edge
// kind, the real-time order included. It reports the live heap before the
// check (the histories generated so far) beside the check's allocations.
func benchCheck(b *testing.B, n int) {
	h, ok := benchHistories[n]
	if !ok {
		h = generate(1, benchWorkload(n))
		benchHistories[n] = h
	}
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Check(h, StrictSerializable)
		if err != nil || !r.OK() {
			b.Fatalf("a valid history failed: %v %v", err, r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/txn")
	b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "MB-live-before")
}

// BenchmarkCheckBroken100k checks a 100k history in which one committed
// read in a hundred lost an element or had two swapped: thousands of
// anomalies, each explained.
func BenchmarkCheckBroken100k(b *testing.B) {
	h := generate(1, benchWorkload(100_000))
	rng := rand.New(rand.NewPCG(2, 2))
	for id := range h.txns {
		t := &h.txns[id]
		for i := range t.Ops {
			if t.Outcome == OK && t.Ops[i].Type == OpRead && rng.IntN(100) == 0 {
				t.Ops = slices.Clone(t.Ops)
				t.Ops[i].Values = slices.Clone(t.Ops[i].Values)
				mutations[rng.IntN(2)].apply(rng, h, &t.Ops[i])
			}
		}
	}
	b.ReportAllocs()
	var r *Result
	for b.Loop() {
		var err error
		if r, err = Check(h, StrictSerializable); err != nil || r.OK() {
			b.Fatalf("a broken history passed: %v %v", err, r)
		}
	}
	b.ReportMetric(float64(len(r.Anomalies)), "anomalies")
}

func BenchmarkCheck10k(b *testing.B)  { benchCheck(b, 10_000) }
func BenchmarkCheck100k(b *testing.B) { benchCheck(b, 100_000) }

// BenchmarkCheck1M runs only when asked for by name (-bench 1M): it
// generates a million transactions first.
func BenchmarkCheck1M(b *testing.B) {
	if !strings.Contains(flag.Lookup("test.bench").Value.String(), "1M") {
		b.Skip("run with -bench 1M")
	}
	benchCheck(b, 1_000_000)
}
