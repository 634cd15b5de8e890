//go:build unix

package linearize

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// reportCPU starts counting the process's CPU time (user and system) and
// returns the function that reports it per operation, as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	start := cpuTime(b)
	return func() { b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op") }
}

// cpuTime returns the CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &u))
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
