package simtest

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planted breaks the rule in each way SeedDriven knows, beside code that
// keeps it.
const planted = `package bad

import (
	"math/rand"
	r2 "math/rand/v2"
	"sync"
	"time"
)

var mu sync.Mutex

func f(ch chan int) {
	_ = time.Now()
	time.Sleep(time.Second)
	<-time.After(time.Millisecond)
	go f(ch)
	_ = rand.Intn(3)
	_ = r2.IntN(3)
	var g *r2.Rand = r2.New(r2.NewPCG(1, 2)) // fine: a private generator
	_ = g.IntN(3)
	_ = time.Duration(3) * time.Millisecond // fine: no clock
	ch <- 1
	select {
	case <-ch:
	}
}
`

func TestSeedDrivenFindsEachViolation(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", planted, parser.SkipObjectResolution)
	require.NoError(t, err)
	var got []string
	for _, v := range SeedDriven(fset, f) {
		got = append(got, v.Pos.String()+": "+v.What)
		assert.NotEmpty(t, v.Why)
	}
	assert.Equal(t, []string{
		"bad.go:6:2: imports sync",
		"bad.go:13:6: uses time.Now",
		"bad.go:14:2: uses time.Sleep",
		"bad.go:15:2: receives from a channel",
		"bad.go:15:4: uses time.After",
		"bad.go:16:2: starts a goroutine",
		"bad.go:17:6: uses rand.Intn",
		"bad.go:18:6: uses rand.IntN",
		"bad.go:22:2: sends on a channel",
		"bad.go:23:2: waits in a select",
		"bad.go:24:7: receives from a channel",
	}, got)
	assert.Equal(t, "bad.go:16:2: starts a goroutine: "+whyGoroutine, SeedDriven(fset, f)[5].String())
}

// writePlanted writes the planted file, and a test file that may break
// the rule, into a new directory.
func writePlanted(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.go"), []byte(planted), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad_test.go"), []byte("package bad\n\nfunc g() { go g() }\n"), 0o644))
	return dir
}

func TestCheckSeedDriven(t *testing.T) {
	dir := writePlanted(t)
	var r recorder
	CheckSeedDriven(&r, dir)
	require.Len(t, r.errors, 11, "one error a finding; test files are not world code")
	assert.Equal(t, filepath.Join(dir, "bad.go")+":6:2: imports sync: "+whyLock, r.errors[0])

	r = recorder{}
	CheckSeedDriven(&r, t.TempDir())
	assert.Empty(t, r.errors, "an empty directory breaks nothing")

	r = recorder{}
	CheckSeedDriven(&r, filepath.Join(dir, "missing"))
	require.Len(t, r.errors, 1)
	assert.Contains(t, r.errors[0], "missing: no such file or directory")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.go"), []byte("package bad\nfunc {"), 0o644))
	r = recorder{}
	CheckSeedDriven(&r, dir)
	require.NotEmpty(t, r.errors)
	assert.Contains(t, r.errors[0], "broken.go:2:")
}

func TestExplainSeedDriven(t *testing.T) {
	var r logRecorder
	t.Chdir(writePlanted(t))
	explainSeedDriven(&r)
	require.Len(t, r.logs, 1)
	assert.True(t, strings.HasPrefix(r.logs[0], "this package's code does 11 thing(s) that break the rule that a run is a function of its seed"), r.logs[0])
	assert.Contains(t, r.logs[0], "\n\tbad.go:16:2: starts a goroutine: ")

	r = logRecorder{}
	t.Chdir(t.TempDir())
	explainSeedDriven(&r)
	assert.Empty(t, r.logs, "nothing found, nothing said")
}

// logRecorder records what is logged.
type logRecorder struct {
	recorder
	logs []string
}

func (r *logRecorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
