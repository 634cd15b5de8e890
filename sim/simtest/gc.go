package simtest

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"
)

// GCPercent is the garbage collector's target (GOGC) that world-driven
// runs use unless the GOGC variable sets one: tests (through Main) and
// labsim sweep. A world keeps a few megabytes live and allocates fast, so
// at Go's default (100) the collector runs every few megabytes and takes a
// third to a half of the time; at 400, 1000 seeds of kv-linearizability
// ran at 73–74 seeds/s instead of 40 on 2 cores, with a peak resident
// size of 80 MB instead of 25, and kvraft's tests took 5.7 CPU seconds
// instead of 9.2. (Figures keep the default: their worlds are large, and
// 400 made them no faster and twice as big.)
const GCPercent = 400

// SetGC sets the collector's target to GCPercent, unless the GOGC
// variable sets one, and returns a function that puts back the target it
// replaced.
func SetGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(GCPercent)
	return func() { debug.SetGCPercent(old) }
}

// Main runs a package's tests with the collector at GCPercent (see SetGC).
// A package of world-driven tests calls it from its TestMain:
//
//	func TestMain(m *testing.M) { simtest.Main(m) }
//
// With -bench it leaves the collector alone, so that benchmarks measure at
// the process's setting (Go's default unless GOGC is set), as their
// numbers in the README were measured.
func Main(m *testing.M) {
	flag.Parse()
	setTestGC()
	m.Run()
}

// setTestGC sets the collector's target for tests: GCPercent (see SetGC),
// unless -test.bench asks for benchmarks.
func setTestGC() {
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		SetGC()
	}
}
