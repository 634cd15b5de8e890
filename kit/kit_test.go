package kit

import (
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/rafttest"
)

// kitModule is the module path the tests write kits under: a course's.
const kitModule = "example.edu/course/lab"

// goTool returns the go command, or skips the test without one.
func goTool(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the kit with: %v", err)
	}
	return gobin
}

// goTest runs go test with args in the kit in dir, and returns its output
// and whether it passed. -trimpath keeps the kit's compiled packages in the
// build cache from one temporary directory to the next.
func goTest(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(goTool(t), append([]string{"test", "-trimpath"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "SIM_SEED=", "SIM_TRACE=")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("go test: %v", err)
	}
	return string(out), err == nil
}

// writeKit writes the kit called kind into a new temporary directory.
func writeKit(t *testing.T, kind string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), kind)
	require.NoError(t, Write(kind, dir, kitModule))
	return dir
}

// copyOurs copies the non-test Go files of our package pkg, and the test
// files named, into the kit in dir, rewritten to the kit's module.
func copyOurs(t *testing.T, dir, pkg string, tests ...string) {
	t.Helper()
	src := filepath.Join("..", pkg)
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		name := e.Name()
		isTest := strings.HasSuffix(name, "_test.go")
		wanted := !isTest && strings.HasSuffix(name, ".go")
		for _, w := range tests {
			wanted = wanted || name == w
		}
		if !wanted {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, name), rewrite(b, kitModule), 0o644))
	}
}

// TestRaftKitFiles checks what the raft kit holds: every Go file gofmt'd
// and importing the kit's packages only, no test file of ours but the
// catalogue's, a go.mod with our Go version, the guide, and a README that
// lists every test of the catalogue under its part, with the part's points.
func TestRaftKitFiles(t *testing.T) {
	dir := writeKit(t, "raft")
	var goFiles []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		goFiles = append(goFiles, filepath.ToSlash(rel))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.NotContains(t, string(b), ourModule, rel)
		formatted, err := format.Source(b)
		require.NoError(t, err, rel)
		assert.Equal(t, string(formatted), string(b), "%s is not gofmt'd", rel)
		return nil
	})
	require.NoError(t, err)
	assert.Contains(t, goFiles, "raft/raft.go")
	assert.Contains(t, goFiles, "rafttest/harness.go")
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") {
			assert.Contains(t, []string{"raft/catalogue_test.go", "raft/lab_test.go"}, f)
		}
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Regexp(t, `^module example.edu/course/lab\n\ngo 1\.\d+`, string(gomod))
	_, err = os.Stat(filepath.Join(dir, "go.sum"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the raft kit needs no other module")
	guide, err := os.ReadFile(filepath.Join(dir, "GUIDE.md"))
	require.NoError(t, err)
	assert.Contains(t, string(guide), "# Writing Raft for a deterministic world")

	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	rows := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if f := strings.Split(line, "|"); len(f) == 6 && strings.HasPrefix(f[1], " 3") {
			rows[strings.TrimSpace(f[1])] = line
		}
	}
	points := map[string]int{}
	for _, test := range rafttest.Tests() {
		assert.Contains(t, rows[test.Part], " "+test.Name+" ", "README's row for part %s", test.Part)
		points[test.Part] += test.Points
	}
	for part, p := range points {
		assert.True(t, strings.HasSuffix(rows[part], " | "+strconv.Itoa(p)+" |"), "README's points for part %s: want %d in %q", part, p, rows[part])
	}
}

// TestRaftKit writes the raft kit, shows that its skeleton fails the
// catalogue saying what is not implemented, then drops our Raft in and
// runs the whole catalogue on it.
func TestRaftKit(t *testing.T) {
	dir := writeKit(t, "raft")
	out, ok := goTest(t, dir, "./raft", "-run", "^TestInitialElection$")
	assert.False(t, ok, "the skeleton passes:\n%s", out)
	assert.Contains(t, out, "panic: not implemented: raft.Make (raft/raft.go)")
	assert.Contains(t, out, "go test ./raft -run '^TestInitialElection$' -seed 1 -v", "the replay command")

	copyOurs(t, dir, "raft", "lab_test.go")
	out, ok = goTest(t, dir, "./raft", "-v")
	require.True(t, ok, "our Raft fails the kit's catalogue:\n%s", out)
	for _, test := range rafttest.Tests() {
		assert.Contains(t, out, "--- PASS: "+test.Name+" ", test.Name)
	}
}
