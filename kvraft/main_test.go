package kvraft_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/replab/replab/harness/sweep"
)

// TestMain runs the tests with the collector at sweep.GCPercent, as labsim
// sweep runs, unless GOGC is set. The package's worlds keep a few
// megabytes live and allocate fast, so at Go's default the collector, and
// the scavenger handing pages back between its cycles, took about a third
// of the package's CPU time: 9.2 CPU seconds at GOGC=100, 5.7 at 400, on
// the 2-core machine (2026-11-23).
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(sweep.GCPercent)
	}
	m.Run()
}
