package simtest

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if gogc, set := os.LookupEnv("GOGC"); set {
		defer os.Setenv("GOGC", gogc)
	}
	os.Unsetenv("GOGC")
	restore := SetGC()
	assert.Equal(t, GCPercent, debug.SetGCPercent(GCPercent), "GOGC unset: the world's target")
	restore()
	assert.Equal(t, 100, debug.SetGCPercent(100), "restored")

	t.Setenv("GOGC", "50")
	SetGC()()
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left alone")
}

func TestBenchmarking(t *testing.T) {
	old := flag.Lookup("test.bench").Value.String()
	defer flag.Set("test.bench", old)
	require.NoError(t, flag.Set("test.bench", ""))
	assert.False(t, benchmarking(), "go test without -bench")
	require.NoError(t, flag.Set("test.bench", "."))
	assert.True(t, benchmarking(), "go test -bench .")
}
