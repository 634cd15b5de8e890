package kit

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ourRaft returns our Raft as a student would hand it in to the raft kit
// of module: our package's files, rewritten to the kit's module, with our
// Make (which takes a Config) renamed, and a file with the lab's Make.
func ourRaft(t *testing.T, module string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	entries, err := os.ReadDir(filepath.Join("..", "..", "raft"))
	require.NoError(t, err)
	makeCall := regexp.MustCompile(`\bMake\(`)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", "..", "raft", name))
		require.NoError(t, err)
		files["raft/"+name] = makeCall.ReplaceAll(rewrite(b, module), []byte("makeNode("))
	}
	files["raft/lab.go"] = []byte(`package raft

import (
	"` + module + `/labrpc"
	"` + module + `/raft/raftapi"
	"` + module + `/sim"
)

// Make is the lab's Make: a node with the lab's timing.
func Make(host *sim.Host, peers []*labrpc.ClientEnd, me int, persister *sim.Persister, apply func(raftapi.ApplyMsg)) *Raft {
	rf, err := makeNode(host, peers, me, persister, apply, LabConfig())
	if err != nil {
		panic(err)
	}
	return rf
}
`)
	return files
}

// submit writes files, by their slash-separated paths, into a new
// directory, and returns it.
func submit(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, writeFiles(dir, files))
	return dir
}

// kitWith writes the raft kit into a new directory, with files written
// over it, and returns the directory.
func kitWith(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kit")
	require.NoError(t, Write("raft", dir, DefaultModule))
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// refused grades the submission in dir, which must be refused before
// anything runs, and returns the reasons.
func refused(t *testing.T, dir string) []string {
	t.Helper()
	sheet, err := GradeStudent(Submission{Dir: dir, Work: filepath.Join(t.TempDir(), "never")})
	require.NoError(t, err)
	assert.Equal(t, "refused", sheet.Status)
	assert.Zero(t, sheet.Points)
	assert.True(t, sheet.Graded)
	assert.NoDirExists(t, filepath.Join(filepath.Dir(dir), "never"), "nothing ran")
	assert.ErrorContains(t, sheet.Err(), "0 of 100 points: the submission is refused: ")
	return sheet.Refused
}

// forged is a student's file that, before the tests run, prints a whole
// catalogue's passing run and exits with status 0.
const forged = `package raft

import (
	"fmt"
	"os"
)

func init() {
	fmt.Println("--- PASS: TestInitialElection (0.00s)")
	os.Setenv("SIM_SEED", "7")
	os.Exit(0)
}
`

// TestGradeStudentRefuses hands in each forgery that the grader can see
// in the files: a rewritten catalogue, an edited simulator, a student's
// file with an init that prints a forged run and exits (or fixes the
// seed), and each other thing a student's file may not do. Each is
// refused, named by file and line, and scores 0; none runs.
func TestGradeStudentRefuses(t *testing.T) {
	catalogue, err := os.ReadFile(filepath.Join("..", "..", "raft", "catalogue_test.go"))
	require.NoError(t, err)
	stub := regexp.MustCompile(`\{ rafttest\.(\w+)\.Run\(t, lab\) \}`).ReplaceAll(rewrite(catalogue, DefaultModule), []byte(`{ t.Log("part 3A, 5 points") }`))
	assert.Equal(t, []string{"raft/catalogue_test.go: the kit's file, changed: a grade runs the kit's files as the kit has them (SHA256SUMS lists them)"},
		refused(t, kitWith(t, map[string]string{"raft/catalogue_test.go": string(stub)})), "the catalogue's tests rewritten to log their points")

	simtest, err := os.ReadFile(filepath.Join("..", "..", "sim", "simtest", "simtest.go"))
	require.NoError(t, err)
	edited := strings.Replace(string(rewrite(simtest, DefaultModule)), "t.Logf(\"part %s, %d points\", part, points)", "t.Logf(\"part %s, %d points\", part, points)\n\tt.SkipNow()", 1)
	assert.Equal(t, []string{"sim/simtest/simtest.go: the kit's file, changed: a grade runs the kit's files as the kit has them (SHA256SUMS lists them)"},
		refused(t, kitWith(t, map[string]string{"sim/simtest/simtest.go": edited})), "the simulator edited")

	assert.Equal(t, []string{
		`raft/forge.go:5: imports "os", which a student's file may not: it could reach the process, its files and its environment`,
		"raft/forge.go:8: declares func init, which a student's file may not: it runs before the tests, outside them",
		"raft/forge.go:11: calls os.Exit, which a student's file may not: it ends the test run",
	}, refused(t, kitWith(t, map[string]string{"raft/forge.go": forged})), "an init that forges a run, sets a fixed seed and exits")

	got := refused(t, submit(t, map[string][]byte{
		"raft/raft.go": []byte(`package raft

import (
	sys "syscall"
	_ "unsafe"
	"reflect"
	"runtime/debug"
	"net/http"
	"lab/sim/simtest"
)

//go:linkname now time.now
func now() int64

func Bye() { sys.Exit(0) }
`),
		"raft/broken.go":     []byte("package raft\n\nfunc (\n"),
		"raft/asm_amd64.s":   []byte("TEXT ·now(SB),0,$0\n"),
		"raft/lab_test.go":   []byte("package raft_test\n"),
		"sim/extra.go":       []byte("package sim\n"),
		"results.json":       []byte("{}\n"),
		".git/HEAD":          []byte("ref: refs/heads/main\n"),
		"raft/.notes.go.swp": []byte("x"),
		"raft/raft_test.go":  []byte("package raft\n"),
		"chaos/not/ours.txt": []byte("x"),
	}))
	assert.Equal(t, []string{
		"chaos/not/ours.txt: neither a file of the kit nor the student's (raft/*.go, but tests)",
		"raft/asm_amd64.s: neither a file of the kit nor the student's (raft/*.go, but tests)",
		"raft/lab_test.go: the kit's file, changed: a grade runs the kit's files as the kit has them (SHA256SUMS lists them)",
		"raft/raft_test.go: neither a file of the kit nor the student's (raft/*.go, but tests)",
		"results.json: neither a file of the kit nor the student's (raft/*.go, but tests)",
		"sim/extra.go: neither a file of the kit nor the student's (raft/*.go, but tests)",
		"raft/broken.go:3:8: expected ')', found 'EOF' (the file does not parse)",
		`raft/raft.go:4: imports "syscall", which a student's file may not: it could reach the operating system`,
		`raft/raft.go:5: imports "unsafe", which a student's file may not: it could reach any memory of the process, the test harness's included`,
		`raft/raft.go:6: imports "reflect", which a student's file may not: it could reach the test harness's unexported state`,
		`raft/raft.go:7: imports "runtime/debug", which a student's file may not: it could reach the process and its goroutines`,
		`raft/raft.go:8: imports "net/http", which is not among the imports the kit allows (INSTRUCTORS.md lists them)`,
		`raft/raft.go:9: imports "lab/sim/simtest", which is not among the imports the kit allows (INSTRUCTORS.md lists them)`,
		"raft/raft.go:12: has the directive //go:linkname, which a student's file may not (only //go:build)",
		"raft/raft.go:15: calls syscall.Exit, which a student's file may not: it ends the test run",
	}, got, "a file the kit does not have is refused, whatever it is; dot files are skipped")

	link := submit(t, map[string][]byte{"raft/raft.go": []byte("package raft\n")})
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(link, "raft", "host.go")))
	assert.Equal(t, []string{"raft/host.go: not a regular file (a link?): hand in the files themselves"}, refused(t, link))

	kv, err := GradeStudent(Submission{Dir: submit(t, map[string][]byte{
		"raft/raft.go":     []byte("package raft\n"),
		"kvraft/server.go": []byte("package kvraft\n\nimport \"os\"\n\nvar _ = os.Args\n"),
	})})
	require.NoError(t, err)
	assert.Equal(t, "kvraft", kv.Lab, "a kvraft directory: the key/value lab")
	assert.Equal(t, []string{`kvraft/server.go:3: imports "os", which a student's file may not: it could reach the process, its files and its environment`}, kv.Refused)

	empty := submit(t, map[string][]byte{"raft/raft_test.go": []byte("package raft\n")})
	assert.Equal(t, []string{
		"raft/raft_test.go: neither a file of the kit nor the student's (raft/*.go, but tests)",
		empty + " holds none of the student's files (raft/*.go, but tests, at those paths)",
	}, refused(t, empty))
}

// TestGradeStudentBadInput checks the errors that leave no sheet.
func TestGradeStudentBadInput(t *testing.T) {
	_, err := GradeStudent(Submission{Dir: "/no/such/dir"})
	assert.EqualError(t, err, "kit: stat /no/such/dir: no such file or directory")
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = GradeStudent(Submission{Dir: file})
	assert.EqualError(t, err, "kit: "+file+" is not a directory: a submission is a directory of the student's files")
	dir := t.TempDir()
	_, err = GradeStudent(Submission{Dir: dir})
	assert.ErrorIs(t, err, ErrNoLab)
	assert.EqualError(t, err, "kit: "+dir+": no raft or kvraft directory, so which lab is it? (a submission has the student's files at their paths in the kit, such as raft/raft.go)")
	_, err = GradeStudent(Submission{Dir: dir, Lab: "raf"})
	assert.EqualError(t, err, `kit: unknown lab "raf" (there are kvraft, raft)`)
	_, err = GradeStudent(Submission{Dir: dir, Lab: "raft", Module: "a b"})
	assert.EqualError(t, err, `kit: module path "a b" has the character ' '`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("go 1.24\n"), 0o644))
	_, err = GradeStudent(Submission{Dir: dir, Lab: "raft"})
	assert.EqualError(t, err, "kit: "+filepath.Join(dir, "go.mod")+" has no module line")
}

// TestGradeStudentModule grades a kit whose go.mod was given another
// module path: the fresh kit is written under that path, and every file
// of the kit's that imports its packages differs.
func TestGradeStudentModule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kit")
	require.NoError(t, Write("raft", dir, "example.edu/lab"))
	gomod := filepath.Join(dir, "go.mod")
	b, err := os.ReadFile(gomod)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(gomod, []byte(strings.Replace(string(b), "example.edu/lab", "other.edu/lab", 1)), 0o644))
	got := refused(t, dir)
	assert.Contains(t, got, "raft/lab_test.go: the kit's file, changed: a grade runs the kit's files as the kit has them (SHA256SUMS lists them)")
	another := regexp.MustCompile(`^\d+ of the kit's \d+ files in ` + regexp.QuoteMeta(dir) + ` differ from the kit this labsim writes: was it written by another version of labsim\? Grade with the version that wrote it$`)
	assert.True(t, slices.ContainsFunc(got, another.MatchString), "a line that suggests another version: %q", got)
	assert.Contains(t, got, `raft/raft.go:10: imports "example.edu/lab/labrpc", which is not among the imports the kit allows (INSTRUCTORS.md lists them)`)
}

func TestChooseSeeds(t *testing.T) {
	files := map[string][]byte{"raft/raft.go": []byte("package raft\n")}
	a, from := chooseSeeds(3, "s3cret", files, time.Unix(1, 0))
	assert.Equal(t, "drawn from the grader's secret and the student's files", from)
	require.Len(t, a, 3)
	for _, seed := range a {
		assert.Greater(t, seed, int64(1_000_000), "above every seed of -seeds N")
		assert.Less(t, seed, int64(10_000_000_000), "short enough to type")
	}
	b, _ := chooseSeeds(3, "s3cret", files, time.Unix(2, 0))
	assert.Equal(t, a, b, "the same secret and files, the same seeds, whenever")
	c, _ := chooseSeeds(3, "s3cret", map[string][]byte{"raft/raft.go": []byte("package raft\n\n")}, time.Unix(1, 0))
	assert.NotEqual(t, a, c, "other files, other seeds")
	d, _ := chooseSeeds(3, "other", files, time.Unix(1, 0))
	assert.NotEqual(t, a, d, "another secret, other seeds")
	e, from := chooseSeeds(1, "", files, time.Unix(1, 0))
	f, _ := chooseSeeds(1, "", files, time.Unix(1, 1))
	assert.Equal(t, "drawn from the time", from)
	assert.NotEqual(t, e, f)
}
