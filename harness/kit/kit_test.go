package kit

import (
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/kvraft/kvtest"
	"github.com/replab/replab/raft/rafttest"
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
// and whether it passed. It runs offline: the modules a kit needs
// (porcupine) are in the module cache already, since this test's own
// build needed them.
func goTest(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	return runIn(t, exec.Command(goTool(t), append([]string{"test"}, args...)...), dir)
}

// runIn runs cmd in dir, offline and with no seed or trace from our
// environment, and returns its output and whether it succeeded.
func runIn(t *testing.T, cmd *exec.Cmd, dir string) (string, bool) {
	t.Helper()
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off", "SIM_SEED=", "SIM_TRACE=")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	return string(out), err == nil
}

// writeKit writes the kit called kind afresh into a directory of the
// system's temporary directory that is the same from run to run: the go
// build cache keys compiled packages by their directory, so a fixed one
// lets a second run reuse the first's work (a new directory each time
// would recompile the kit, and -trimpath would rebuild the standard
// library once, about 90 s on two cores).
//
// The directory is named after this checkout's and the test, so that two
// checkouts on one machine (git worktrees, say), and two tests running at
// once, never share one.
func writeKit(t *testing.T, kind string) string {
	t.Helper()
	test := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	dir := filepath.Join(kitRoot(), test, kind)
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, Write(kind, dir, kitModule))
	t.Cleanup(func() {
		os.RemoveAll(dir)
		// The directories above it, unless another test's kit is there.
		os.Remove(filepath.Dir(dir))
		os.Remove(filepath.Dir(filepath.Dir(dir)))
	})
	return dir
}

// kitRoot returns the directory of the system's temporary directory that
// this checkout's kit tests write their kits under.
func kitRoot() string {
	wd, _ := os.Getwd()
	return filepath.Join(os.TempDir(), fmt.Sprintf("replab-kit-test-%08x", crc32.ChecksumIEEE([]byte(wd))))
}

// TestMain runs the tests, then fails if they left anything in kitRoot:
// a kit is some megabytes, and the next run writes it afresh anyway.
func TestMain(m *testing.M) {
	code := m.Run()
	if _, err := os.Stat(kitRoot()); err == nil {
		fmt.Fprintf(os.Stderr, "the kit's tests left %s behind\n", kitRoot())
		code = 1
	}
	os.Exit(code)
}

// copyOurs puts our package pkg in place of the kit's in dir: it removes
// the kit's non-test Go files there, and copies ours and the test files
// named, rewritten to the kit's module.
func copyOurs(t *testing.T, dir, pkg string, tests ...string) {
	t.Helper()
	kitFiles, err := filepath.Glob(filepath.Join(dir, pkg, "*.go"))
	require.NoError(t, err)
	for _, f := range kitFiles {
		if !strings.HasSuffix(f, "_test.go") {
			require.NoError(t, os.Remove(f))
		}
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
	src := filepath.Join("..", "..", pkg)
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

// A graded test, as either catalogue lists it.
type graded struct {
	name, part string
	points     int
}

// catalogues returns each kit's tests.
func catalogues() map[string][]graded {
	out := map[string][]graded{}
	for _, test := range rafttest.Tests() {
		out["raft"] = append(out["raft"], graded{test.Name, test.Part, test.Points})
	}
	for _, test := range kvtest.Tests() {
		out["kvraft"] = append(out["kvraft"], graded{test.Name, test.Part, test.Points})
	}
	return out
}

// TestKitFiles checks what each kit holds: every Go file gofmt'd and
// importing the kit's packages only, no test file of ours but the
// catalogue's, a go.mod with our Go version (and a go.sum for what it
// requires), the guide, and a README that lists every test of the
// catalogue under its part, with the part's points.
func TestKitFiles(t *testing.T) {
	assert.Equal(t, []string{"kvraft", "raft"}, Kinds())
	for kind, tests := range catalogues() {
		t.Run(kind, func(t *testing.T) { checkKitFiles(t, kind, tests) })
	}
}

func checkKitFiles(t *testing.T, kind string, tests []graded) {
	dir := writeKit(t, kind)
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
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") {
			assert.Contains(t, []string{"catalogue_test.go", "lab_test.go", "seeddriven_test.go"}, path.Base(f))
		}
	}
	checkReferences(t, dir)
	checkTestFuncs(t, dir, kind, tests)
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Regexp(t, `^module example.edu/course/lab\n\ngo 1\.\d+`, string(gomod))
	gosum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if kind == "raft" {
		assert.ErrorIs(t, err, fs.ErrNotExist, "the raft kit needs no other module")
	} else {
		require.NoError(t, err)
		assert.Contains(t, string(gomod), "\nrequire github.com/anishathalye/porcupine v")
		assert.Equal(t, 2, strings.Count(string(gosum), "github.com/anishathalye/porcupine v"), "the module's and its go.mod's sums")
	}
	checkSums(t, dir, kind)
	instructors, err := os.ReadFile(filepath.Join(dir, instructorsFile))
	require.NoError(t, err)
	for _, want := range append([]string{"labsim grade -student DIR -lab " + kind + " -module " + kitModule + " ", "`go test -json ./" + kind + "`", "`" + kitModule + "/sim`"}, specs[kind].student...) {
		assert.Contains(t, string(instructors), want)
	}

	guide, err := os.ReadFile(filepath.Join(dir, "GUIDE.md"))
	require.NoError(t, err)
	assert.Contains(t, string(guide), "# Writing Raft for a deterministic world")

	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "\ngo install "+ourModule+"/cmd/labsim@latest ", "labsim comes from replab, not the kit")
	rows := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if f := strings.Split(line, "|"); len(f) == 6 && len(f[1]) == 4 && f[1][1] >= '0' && f[1][1] <= '9' {
			rows[strings.TrimSpace(f[1])] = line
		}
	}
	points := map[string]int{}
	for _, test := range tests {
		assert.Contains(t, rows[test.part], " "+test.name+" ", "README's row for part %s", test.part)
		points[test.part] += test.points
	}
	assert.Len(t, rows, len(points), "README's parts")
	for part, p := range points {
		assert.True(t, strings.HasSuffix(rows[part], " | "+strconv.Itoa(p)+" |"), "README's points for part %s: want %d in %q", part, p, rows[part])
	}
}

// checkSums checks that the kit's SHA256SUMS holds the hash of each of its
// files but the student's and itself, as sha256sum -c would.
func checkSums(t *testing.T, dir, kind string) {
	b, err := os.ReadFile(filepath.Join(dir, sumsFile))
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, line)
		content, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%x", sha256.Sum256(content)), sum, name)
		listed[name] = true
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		assert.Equal(t, !specs[kind].isStudent(rel) && rel != sumsFile, listed[rel], "%s in %s", rel, sumsFile)
		return nil
	})
	require.NoError(t, err)
	assert.True(t, listed[instructorsFile])
}

var (
	fileRef = regexp.MustCompile(`[A-Za-z0-9_./-]+\.(go|md)\b`)
	testRef = regexp.MustCompile(`\bTest[A-Z]\w*`)
	declRef = regexp.MustCompile(`\b([a-z]+)\.([A-Z]\w*)`)
)

// checkReferences checks that what the kit's text names is in the kit:
// every file a document or a Go file mentions (from the kit's root or its
// own directory), every test a document names, and every pkg.Name a
// document names of a package of the kit.
func checkReferences(t *testing.T, dir string) {
	decls := map[string]map[string]bool{} // package directory's base -> declared names
	var docs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		if strings.HasSuffix(p, ".md") {
			docs = append(docs, p)
		}
		if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		for _, ref := range fileRef.FindAllString(string(b), -1) {
			if ref == "_test.go" || strings.Contains(ref, "://") {
				continue
			}
			_, errRoot := os.Stat(filepath.Join(dir, ref))
			_, errHere := os.Stat(filepath.Join(filepath.Dir(p), ref))
			assert.True(t, errRoot == nil || errHere == nil, "%s mentions %s, which the kit lacks", rel, ref)
		}
		if strings.HasSuffix(p, ".go") {
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			base := filepath.Base(filepath.Dir(p))
			if decls[base] == nil {
				decls[base] = map[string]bool{}
			}
			for name, obj := range declared(f) {
				decls[base][name] = obj
			}
		}
		return nil
	})
	require.NoError(t, err)
	for _, p := range docs {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		for _, ref := range testRef.FindAllString(string(b), -1) {
			found := false
			for _, names := range decls {
				found = found || names[ref]
			}
			assert.True(t, found, "%s names %s, which no test file of the kit declares", rel, ref)
		}
		for _, m := range declRef.FindAllStringSubmatch(string(b), -1) {
			if names, ok := decls[m[1]]; ok {
				assert.True(t, names[m[2]], "%s names %s.%s, which the kit's package %s does not declare", rel, m[1], m[2], m[1])
			}
		}
	}
}

// checkTestFuncs checks that the test files of the kit's lab package
// declare the catalogue's tests and the kit's checks, and no other test.
func checkTestFuncs(t *testing.T, dir, kind string, tests []graded) {
	files, err := filepath.Glob(filepath.Join(dir, kind, "*_test.go"))
	require.NoError(t, err)
	var got []string
	for _, p := range files {
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for name := range declared(f) {
			if strings.HasPrefix(name, "Test") && name != "TestMain" {
				got = append(got, name)
			}
		}
	}
	want := slices.Clone(specs[kind].checks)
	for _, test := range tests {
		want = append(want, test.name)
	}
	assert.ElementsMatch(t, want, got, "the tests of the kit's package %s: the catalogue's and the kit's checks", kind)
}

// declared returns the names a file declares at its top level, and its
// methods' names.
func declared(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out[d.Name.Name] = true
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					out[spec.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						out[n.Name] = true
					}
				}
			}
		}
	}
	return out
}

// A kitRun is what a kit test does with a kit: check that the skeleton
// fails first with missing, then drop our packages in and run tests.
type kitRun struct {
	kind    string   // the kit, and the package its catalogue tests
	missing string   // what the skeleton says is not implemented first
	ours    []string // our packages, dropped in before the kit's package
	run     []string // the catalogue's tests to run on ours
}

// port is a file of a goroutine-based port, which breaks a seed twice.
const port = `package %s

import "time"

func ticker() {
	for {
		time.Sleep(10 * time.Millisecond)
	}
}

func startTicker() { go ticker() }
`

// skeleton writes the kit, shows that its skeleton fails the catalogue's
// first test saying what is not implemented (with the replay command),
// and, with a goroutine-based file added, what breaks a seed, in that
// test and in TestSeedDriven; it returns the kit's directory.
func (k kitRun) skeleton(t *testing.T) string {
	if testing.Short() {
		t.Skip("-short: builds a kit and runs go test in it twice")
	}
	dir := writeKit(t, k.kind)
	pkg := "./" + k.kind
	portFile := filepath.Join(dir, k.kind, "port.go")
	require.NoError(t, os.WriteFile(portFile, []byte(fmt.Sprintf(port, k.kind)), 0o644))
	out, ok := goTest(t, dir, "-run", "^("+k.run[0]+"|TestSeedDriven)$", pkg)
	assert.False(t, ok, "the skeleton passes:\n%s", out)
	assert.Contains(t, out, "panic: not implemented: "+k.missing)
	assert.Contains(t, out, "go test "+pkg+" -run '^"+k.run[0]+"$' -seed 1 -v", "the replay command")
	assert.Contains(t, out, "this package's code does 2 thing(s) that break the rule that a run is a function of its seed")
	for _, want := range []string{"port.go:7:3: uses time.Sleep: ", "port.go:11:22: starts a goroutine: "} {
		assert.Equal(t, 2, strings.Count(out, want), "%q, in the failing test and in TestSeedDriven:\n%s", want, out)
	}
	assert.Contains(t, out, "--- FAIL: TestSeedDriven ")
	require.NoError(t, os.Remove(portFile))
	return dir
}

// check checks the kit's skeleton, then drops our packages and our
// lab_test.go into the kit and runs k.run there, graded as practice.
func (k kitRun) check(t *testing.T) {
	dir := k.skeleton(t)
	pkg := "./" + k.kind
	for _, p := range k.ours {
		copyOurs(t, dir, p)
	}
	copyOurs(t, dir, k.kind, "lab_test.go")
	out, ok := goTest(t, dir, pkg, "-json", "-run", "^("+strings.Join(k.run, "|")+")$")
	require.True(t, ok, "our code fails the kit's catalogue:\n%s", out)
	sheet, err := Grade(strings.NewReader(out), "")
	require.NoError(t, err)
	for _, name := range k.run {
		assert.Equal(t, "pass", sheet.result(name).Status, name)
	}
	cat, err := Catalogue(k.kind)
	require.NoError(t, err)
	assert.Len(t, sheet.NotRun(), len(cat)-len(k.run))
	assert.Equal(t, len(k.run) == len(cat), sheet.Err() == nil, "a full grade if all ran: %v", sheet.Err())
}

// TestRaftKit checks the raft kit's skeleton, then grades our Raft, handed
// in as a student would, in the kit's directory: full marks. A Raft that
// forges a passing run in its output and then crashes the run scores 0.
func TestRaftKit(t *testing.T) {
	t.Parallel()
	var all, forged []string
	for _, test := range rafttest.Tests() {
		all = append(all, test.Name)
		forged = append(forged, fmt.Sprintf("%s:%s:%d", test.Name, test.Part, test.Points))
	}
	dir := kitRun{kind: "raft", missing: "raft.Make (raft/raft.go)", run: all}.skeleton(t)
	grade := func(files map[string][]byte) *Sheet {
		sheet, err := GradeStudent(Submission{Dir: submit(t, files), Module: kitModule, Work: dir, Secret: t.Name()})
		require.NoError(t, err)
		return sheet
	}
	sheet := grade(ourRaft(t, kitModule))
	assert.NoError(t, sheet.Err(), "%s", sheet.table(t))
	assert.Equal(t, 100, sheet.Points)
	assert.Len(t, sheet.Seeds, 3)
	assert.Contains(t, sheet.table(t), "graded: labsim ran the catalogue on the student's files in a fresh kit, on seeds "+seedList(sheet.Seeds)+" (drawn from the grader's secret and the student's files)\n")

	sheet = grade(map[string][]byte{"raft/raft.go": []byte(fmt.Sprintf(forger, kitModule, kitModule, kitModule, strings.Join(forged[1:], " ")))})
	assert.Zero(t, sheet.Points)
	require.Equal(t, "unfinished", sheet.result(all[0]).Status, "the test the crash cut short: %s", sheet.table(t))
	assert.Equal(t, []string{
		fmt.Sprintf("27 tests (%s) ran seeds %d, not the seeds the grader chose (%s)", strings.Join(all[1:], ", "), sheet.Seeds[0], seedList(sheet.Seeds)),
		fmt.Sprintf("27 tests (%s) passed in the run's output, yet the kit's record of the run has no outcome of it: output forged by the code under test?", strings.Join(all[1:], ", ")),
	}, sheet.Shape, "%s", sheet.table(t))
}

// forger is a student's raft.go (for a kit's module, and tests given as
// name:part:points) that prints a passing run of each test on the seed
// of the world it is in, framed as go test frames its own lines, then
// panics on a goroutine of its own, which ends the run before the real
// tests can end.
const forger = `package raft

import (
	"fmt"
	"strings"

	"%s/labrpc"
	"%s/raft/raftapi"
	"%s/sim"
)

type Raft struct{}

func Make(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, apply func(raftapi.ApplyMsg)) *Raft {
	seed := host.World().Seed()
	for _, t := range strings.Fields("%s") {
		f := strings.Split(t, ":")
		test := f[0]
		fmt.Printf("\x16=== RUN   %%s\n    catalogue_test.go:16: part %%s, %%s points\n", test, f[1], f[2])
		for _, sub := range []string{fmt.Sprintf("seed=%%d", seed), fmt.Sprintf("replay=%%d", seed)} {
			fmt.Printf("\x16=== RUN   %%s/%%s\n\x16--- PASS: %%s/%%s (0.00s)\n", test, sub, test, sub)
		}
		fmt.Printf("\x16--- PASS: %%s (0.00s)\n", test)
	}
	go func() { panic("the run ends here") }()
	select {}
}

func (rf *Raft) GetState() (int, bool)          { return 0, false }
func (rf *Raft) Start(any) (int, int, bool)     { return 0, 0, false }
func (rf *Raft) Snapshot(int, []byte)           {}
func (rf *Raft) Kill()                          {}
`

// TestKVRaftKit checks the kvraft kit's skeleton, and runs the quicker half
// of the catalogue (both parts) on our Raft, service core and key/value
// service in the kit.
func TestKVRaftKit(t *testing.T) {
	t.Parallel()
	kitRun{kind: "kvraft", missing: "kvraft.StartKVServer (kvraft/server.go)", ours: []string{"raft", "rsm", "rsm/wire"},
		run: []string{"TestBasic", "TestSpeed", "TestUnreliable", "TestUnreliableOneKey", "TestOnePartition", "TestPersistPartitionUnreliable",
			"TestSnapshotRPC", "TestSnapshotSize", "TestSpeedSnapshot", "TestSnapshotUnreliableRecoverConcurrentPartition"}}.check(t)
}

func TestCheckModulePath(t *testing.T) {
	for _, ok := range []string{"example.edu/course/lab", "az.AZ09/x_y~z-w", "lab"} {
		assert.NoError(t, CheckModulePath(ok), ok)
	}
	// The characters next to each range's ends, and the separators.
	for _, r := range "`{@[/:" {
		p := "lab" + string(r) + "x"
		if r == '/' {
			p = "lab//x"
		}
		assert.Error(t, CheckModulePath(p), p)
	}
	assert.EqualError(t, CheckModulePath("lab:x"), `kit: module path "lab:x" has the character ':'`)
	assert.EqualError(t, CheckModulePath(""), "kit: the module path is empty")
	assert.EqualError(t, CheckModulePath("a/../b"), `kit: module path "a/../b" has an empty, . or .. element`)
}
