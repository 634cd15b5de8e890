package replab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// World code is every non-test file of a package that imports sim (and sim
// itself): it runs inside a simulated world, so it must not read the wall
// clock, sleep, start goroutines, lock, or use the global random number
// generator: a world is one goroutine, driven by its seed.
const simPath = "github.com/replab/replab/sim"

// drivers are the packages and files that run worlds from outside, many
// at once (one per goroutine) or timed on the wall clock, and touch no
// world's events themselves. Each must exist.
var drivers = []string{"cmd/labsim", "harness/labsim", "sim/simtest", "harness/sweep/sweep.go", "harness/experiments/parallel.go"}

// wallClock lists the functions of package time that read or wait on the
// wall clock.
var wallClock = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true,
}

// randPrivate are the math/rand names that make or name a private generator
// rather than use the global one.
var randPrivate = map[string]bool{
	"New": true, "NewPCG": true, "NewChaCha8": true, "NewSource": true, "NewZipf": true,
	"Rand": true, "Source": true, "PCG": true, "ChaCha8": true, "Zipf": true,
}

// violations returns what in one file breaks the one-goroutine, seed-driven
// rule, a line each.
func violations(fset *token.FileSet, f *ast.File) []string {
	imports := map[string]string{} // local name -> import path
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = path
		if path == "sync" || path == "sync/atomic" {
			report(imp, "imports "+path+": a world has one goroutine and needs no locks")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			report(n, "starts a goroutine")
		case *ast.SelectorExpr:
			pkg, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch imports[pkg.Name] {
			case "time":
				if wallClock[n.Sel.Name] {
					report(n, "uses time."+n.Sel.Name+": the wall clock")
				}
			case "math/rand", "math/rand/v2":
				if !randPrivate[n.Sel.Name] {
					report(n, "uses rand."+n.Sel.Name+": the global random number generator")
				}
			}
		}
		return true
	})
	return out
}

// worldFiles returns the non-test Go files of every package under root
// that imports sim, and sim's own, except the drivers.
func worldFiles(t *testing.T, fset *token.FileSet) map[string]*ast.File {
	byDir := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], path)
		return nil
	})
	require.NoError(t, err)
	skip := map[string]bool{}
	for _, d := range drivers {
		_, err := os.Stat(d)
		require.NoError(t, err, "driver file %s is listed but missing", d)
		skip[d] = true
	}
	files := map[string]*ast.File{}
	for dir, paths := range byDir {
		parsed := map[string]*ast.File{}
		world := dir == "sim"
		for _, path := range paths {
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			parsed[path] = f
			for _, imp := range f.Imports {
				world = world || imp.Path.Value == strconv.Quote(simPath)
			}
		}
		for path, f := range parsed {
			if world && !skip[path] && !skip[dir] {
				files[path] = f
			}
		}
	}
	return files
}

func TestWorldCodeIsSeedDriven(t *testing.T) {
	fset := token.NewFileSet()
	files := worldFiles(t, fset)
	paths := slices.Sorted(maps.Keys(files))
	for _, path := range paths {
		for _, v := range violations(fset, files[path]) {
			t.Error(v)
		}
	}
	for _, want := range []string{"sim/world.go", "labrpc/call.go", "raft/raft.go", "rsm/server.go", "kvraft/server.go", "harness/sweep/kv.go"} {
		assert.Contains(t, paths, want, "world code found by its imports")
	}
}

func TestHygieneCheckCatchesEachViolation(t *testing.T) {
	const planted = `package bad

import (
	"math/rand"
	r2 "math/rand/v2"
	"sync"
	"time"
)

var mu sync.Mutex

func f() {
	_ = time.Now()
	time.Sleep(time.Second)
	<-time.After(time.Millisecond)
	go f()
	_ = rand.Intn(3)
	_ = r2.IntN(3)
	var g *r2.Rand = r2.New(r2.NewPCG(1, 2)) // fine: a private generator
	_ = g.IntN(3)
	_ = time.Duration(3) * time.Millisecond     // fine: no clock
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", planted, parser.SkipObjectResolution)
	require.NoError(t, err)
	got := violations(fset, f)
	want := []string{
		"bad.go:6:2: imports sync: a world has one goroutine and needs no locks",
		"bad.go:13:6: uses time.Now: the wall clock",
		"bad.go:14:2: uses time.Sleep: the wall clock",
		"bad.go:15:4: uses time.After: the wall clock",
		"bad.go:16:2: starts a goroutine",
		"bad.go:17:6: uses rand.Intn: the global random number generator",
		"bad.go:18:6: uses rand.IntN: the global random number generator",
	}
	assert.Equal(t, want, got)
}
