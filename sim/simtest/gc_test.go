package simtest

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutGOGC runs the rest of the test with GOGC unset and the collector
// at 100, and puts both back after.
func withoutGOGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	if gogc, set := os.LookupEnv("GOGC"); set {
		t.Cleanup(func() { os.Setenv("GOGC", gogc) })
	}
	os.Unsetenv("GOGC")
}

func TestSetGC(t *testing.T) {
	withoutGOGC(t)
	restore := SetGC()
	assert.Equal(t, GCPercent, debug.SetGCPercent(GCPercent), "GOGC unset: the world's target")
	restore()
	assert.Equal(t, 100, debug.SetGCPercent(100), "restored")

	t.Setenv("GOGC", "50")
	SetGC()()
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left alone")
}

func TestSetTestGC(t *testing.T) {
	withoutGOGC(t)
	old := flag.Lookup("test.bench").Value.String()
	t.Cleanup(func() { flag.Set("test.bench", old) })

	require.NoError(t, flag.Set("test.bench", "."))
	setTestGC()
	assert.Equal(t, 100, debug.SetGCPercent(100), "go test -bench: the process's setting")

	require.NoError(t, flag.Set("test.bench", ""))
	setTestGC()
	assert.Equal(t, GCPercent, debug.SetGCPercent(100), "go test: the world's target")
}
