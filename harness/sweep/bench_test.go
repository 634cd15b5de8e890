package sweep

import (
	"runtime/debug"
	"testing"

	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/sim/simtest"
)

// BenchmarkKVLinearizabilitySeed runs whole seeds of kv-linearizability
// (30 virtual seconds of five servers, clients and chaos, then the
// porcupine check), cycling over eight seeds, with the garbage collector at
// the process's setting (Go's default GOGC=100 unless GOGC is set). ops/s
// counts the client operations the seeds complete per wall second.
func BenchmarkKVLinearizabilitySeed(b *testing.B) { benchSeeds(b) }

// BenchmarkKVLinearizabilitySeedSweepGC is BenchmarkKVLinearizabilitySeed
// with the collector at simtest.GCPercent, as labsim sweep runs it.
func BenchmarkKVLinearizabilitySeedSweepGC(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(simtest.GCPercent))
	benchSeeds(b)
}

// BenchmarkKVLinearizabilitySeedRecorded is BenchmarkKVLinearizabilitySeed
// with each seed recorded into a run file (labsim record): what a
// recording costs.
func BenchmarkKVLinearizabilitySeedRecorded(b *testing.B) {
	sc, err := Lookup("kv-linearizability")
	if err != nil {
		b.Fatal(err)
	}
	events := 0
	for i := 0; i < b.N; i++ {
		rc := &testbed.Recording{}
		if o := sc.Run(int64(i%8)+1, "", rc); !o.OK() {
			b.Fatalf("seed %d: %s", o.Seed, o.Problem)
		}
		events += len(rc.File.Events)
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/seed")
}

func benchSeeds(b *testing.B) {
	sc, err := Lookup("kv-linearizability")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	ops := 0
	for i := 0; i < b.N; i++ {
		o := sc.Run(int64(i%8)+1, dir, nil)
		if !o.OK() {
			b.Fatalf("seed %d: %s", o.Seed, o.Problem)
		}
		ops += o.Ops
	}
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}
