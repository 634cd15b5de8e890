package txncheck

import (
	"flag"
	"strings"
	"testing"
)

// benchHistories caches the generated histories across runs (-count).
var benchHistories = map[int]*History{}

// benchCheck checks a generated valid history of n transactions (4 micro-ops
// each, 100 keys, 10 processes) under strict serializability: every edge
// kind, the real-time order included.
func benchCheck(b *testing.B, n int) {
	h, ok := benchHistories[n]
	if !ok {
		h = generate(1, benchWorkload(n))
		benchHistories[n] = h
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Check(h, StrictSerializable)
		if err != nil || !r.OK() {
			b.Fatalf("a valid history failed: %v %v", err, r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/txn")
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
