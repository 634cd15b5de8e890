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

	"github.com/replab/replab/sim/simtest"
)

// World code is every non-test file of a package that imports sim (and sim
// itself): it runs inside a simulated world, so it must not read the wall
// clock, sleep, start goroutines, lock, or use the global random number
// generator: a world is one goroutine, driven by its seed. The check is
// simtest.SeedDriven, which the course kits run on a student's code too.
const simPath = "github.com/replab/replab/sim"

// drivers are the packages and files that run worlds from outside, many
// at once (one per goroutine) or timed on the wall clock, or show
// progress while they run, and hold no code that runs inside a world.
// Each must exist.
var drivers = []string{"sim/simtest", "harness/sweep/sweep.go", "harness/experiments/parallel.go",
	"harness/labsim/demo.go", "harness/labsim/experiments.go", "harness/labsim/progress.go", "harness/labsim/shrink.go", "harness/labsim/gallery.go", "harness/labsim/sweep.go",
	"harness/search/driver.go"}

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
		for _, f := range simtest.SeedDriven(fset, files[path]) {
			t.Error(f)
		}
	}
	for _, want := range []string{"sim/world.go", "labrpc/call.go", "raft/raft.go", "rsm/server.go", "kvraft/server.go", "harness/sweep/kv.go"} {
		assert.Contains(t, paths, want, "world code found by its imports")
	}
}
