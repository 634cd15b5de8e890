package replab

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// services are the packages on level 2: each is its state machines, its
// RPC types, its handlers and its clerk.
var services = []string{"kvraft", "shardtxn", "shardtxn/logorder", "frangipani"}

// TestServicesStandOnTheHouse checks the rule of the layers for services:
// a service imports the world, the network, Raft's API and the service
// core, never another service, nor chaos, porcupine, the checks or the
// harness (what two services need goes into rsm or a support package).
func TestServicesStandOnTheHouse(t *testing.T) {
	const module = "github.com/replab/replab/"
	for _, svc := range services {
		files, err := filepath.Glob(filepath.Join(filepath.FromSlash(svc), "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "service %s has no files", svc)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rel, ours := strings.CutPrefix(path, module)
				switch {
				case strings.Contains(path, "porcupine"):
					t.Errorf("%s imports porcupine: checks judge a service from outside", f)
				case !ours:
				case strings.HasPrefix(rel, "chaos") || strings.HasPrefix(rel, "checks/") || strings.HasPrefix(rel, "harness/"):
					t.Errorf("%s imports %s: a service stands on sim, labrpc, raft/raftapi and rsm only", f, rel)
				default:
					for _, other := range services {
						assert.False(t, rel == other && !strings.HasPrefix(svc, other), "%s imports the service %s", f, rel)
					}
				}
			}
		}
	}
}

// TestTestbedImportsNoService checks that the testbed, with its tests,
// stands below the services: it imports none of them, nor a package above
// it, so every service's tests can run on it.
func TestTestbedImportsNoService(t *testing.T) {
	const module = "github.com/replab/replab/"
	files, err := filepath.Glob(filepath.Join("harness", "testbed", "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	above := append([]string{"harness/sweep", "harness/experiments", "harness/kit", "harness/labsim"}, services...)
	for _, f := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rel, ours := strings.CutPrefix(path, module)
			if !ours {
				continue
			}
			for _, up := range above {
				assert.False(t, rel == up || strings.HasPrefix(rel, up+"/"), "%s imports %s, which stands above the testbed", f, rel)
			}
		}
	}
}

// TestNoArrowRunsUpInTests checks every Go file, tests included, below
// the top of the harness: none imports the sweeps, the experiments, the
// kits or the command, so a package's tests run on what stands below it.
func TestNoArrowRunsUpInTests(t *testing.T) {
	const module = "github.com/replab/replab/"
	top := []string{"harness/sweep", "harness/experiments", "harness/kit", "harness/labsim", "cmd"}
	above := func(rel string) bool {
		for _, up := range top {
			if rel == up || strings.HasPrefix(rel, up+"/") {
				return true
			}
		}
		return false
	}
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if d.IsDir() || !strings.HasSuffix(path, ".go") || dir == "." || above(dir) || strings.HasPrefix(dir, "examples") {
			return nil
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range parsed.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rel, ours := strings.CutPrefix(p, module); ours && above(rel) {
				t.Errorf("%s imports %s, which stands above it", path, rel)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, checked, 300, "the walk found the module's files")
}
