package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const labPkg = kitModule + "/raft"

// gradeFile grades the go test -json stream in testdata/name.
func gradeFile(t *testing.T, name string) *Sheet {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	require.NoError(t, err)
	defer f.Close()
	s, err := Grade(f, "")
	require.NoError(t, err)
	return s
}

// stream builds a go test -json stream, a test at a time.
type stream struct{ b strings.Builder }

func (s *stream) event(pkg, test, action, output string) {
	b, _ := json.Marshal(event{Action: action, Package: pkg, Test: test, Output: output})
	s.b.Write(append(b, '\n'))
}

// test adds a run of test in pkg that logs lines and ends with result.
func (s *stream) test(pkg, test, result string, lines ...string) {
	s.event(pkg, test, "run", "")
	for _, l := range lines {
		s.event(pkg, test, "output", "    catalogue_test.go:16: "+l+"\n")
	}
	s.event(pkg, test, result, "")
}

// graded adds a run of the catalogue's test as the kit's harness runs
// it: it logs its part and points and runs seeds (the kit's defaults if
// none are given), then, if all passed, its replay check, and ends with
// result.
func (s *stream) graded(t *testing.T, test, result string, seeds ...int64) {
	cat, err := Catalogue("raft")
	require.NoError(t, err)
	i := slices.IndexFunc(cat, func(g Graded) bool { return g.Name == test })
	require.GreaterOrEqual(t, i, 0, test)
	if len(seeds) == 0 {
		seeds = []int64{1, 2, 3}
	}
	s.event(labPkg, test, "run", "")
	s.event(labPkg, test, "output", fmt.Sprintf("    catalogue_test.go:16: part %s, %d points\n", cat[i].Part, cat[i].Points))
	subtest := func(name, result string) {
		s.event(labPkg, test+"/"+name, "run", "")
		s.event(labPkg, test+"/"+name, result, "")
	}
	for _, seed := range seeds {
		if result == "fail" { // as simtest.OnFailure and go test say it
			s.event(labPkg, fmt.Sprintf("%s/seed=%d", test, seed), "run", "")
			s.event(labPkg, fmt.Sprintf("%s/seed=%d", test, seed), "output", fmt.Sprintf("    simtest.go:270: FAILED with seed %d; replay with:\n", seed))
			s.event(labPkg, fmt.Sprintf("%s/seed=%d", test, seed), "output", fmt.Sprintf("    --- FAIL: %s/seed=%d (0.01s)\n", test, seed))
			s.event(labPkg, fmt.Sprintf("%s/seed=%d", test, seed), "fail", "")
			break
		}
		subtest(fmt.Sprintf("seed=%d", seed), result)
	}
	if result == "pass" {
		subtest(fmt.Sprintf("replay=%d", seeds[0]), "pass")
	}
	s.event(labPkg, test, result, "")
}

// catalogue adds a run of each of the raft catalogue's tests that logs
// its part and points, runs seeds (the kit's defaults if none are given)
// and passes, but for the tests in skip.
func (s *stream) catalogue(t *testing.T, skip []string, seeds ...int64) {
	cat, err := Catalogue("raft")
	require.NoError(t, err)
	for _, g := range cat {
		if !slices.Contains(skip, g.Name) {
			s.graded(t, g.Name, "pass", seeds...)
		}
	}
}

func (s *stream) grade(t *testing.T, lab string) *Sheet {
	t.Helper()
	sheet, err := Grade(strings.NewReader(s.b.String()), lab)
	require.NoError(t, err)
	return sheet
}

// result returns the sheet's result for the named test.
func (sh *Sheet) result(name string) Result {
	for _, r := range sh.Tests {
		if r.Test == name {
			return r
		}
	}
	return Result{}
}

func TestGradeFullRun(t *testing.T) {
	var s stream
	s.catalogue(t, nil)
	s.event(labPkg, "", "pass", "")
	sheet := s.grade(t, "")
	assert.Equal(t, "raft", sheet.Lab)
	assert.Equal(t, "ok", sheet.Status)
	assert.Equal(t, [2]int{100, 100}, [2]int{sheet.Points, sheet.Max})
	assert.Equal(t, []Part{{"3A", 15, 15}, {"3B", 30, 30}, {"3C", 32, 32}, {"3D", 23, 23}}, sheet.Parts)
	assert.NoError(t, sheet.Err())
	assert.Empty(t, sheet.NotRun())
	var table bytes.Buffer
	require.NoError(t, sheet.WriteTable(&table))
	assert.True(t, strings.HasSuffix(table.String(), "\ntotal     100/100\n"), "nothing said of tests not run or not graded:\n%s", table.String())
}

// TestGradeLongOutput grades a run in which a test prints a line longer
// than a Scanner's default limit (64 KB).
func TestGradeLongOutput(t *testing.T) {
	var s stream
	s.catalogue(t, nil)
	s.event(labPkg, "TestCount", "output", strings.Repeat("x", 1<<20)+"\n")
	sheet := s.grade(t, "")
	assert.Equal(t, 100, sheet.Points)
}

// TestGradeDependencyDoesNotBuild grades a run of the key/value kit whose
// Raft does not build: the lab is still kvraft, and the error the Raft's.
func TestGradeDependencyDoesNotBuild(t *testing.T) {
	raftPkg, kvPkg := kitModule+"/raft", kitModule+"/kvraft"
	in := `{"ImportPath":"` + raftPkg + `","Action":"build-output","Output":"# ` + raftPkg + `\n"}
{"ImportPath":"` + raftPkg + `","Action":"build-output","Output":"raft/raft.go:12:2: declared and not used: x\n"}
{"ImportPath":"` + raftPkg + `","Action":"build-fail"}
{"Action":"start","Package":"` + kvPkg + `"}
{"Action":"output","Package":"` + kvPkg + `","Output":"FAIL\t` + kvPkg + ` [build failed]\n"}
{"Action":"fail","Package":"` + kvPkg + `","Elapsed":0,"FailedBuild":"` + raftPkg + `"}
`
	sheet, err := Grade(strings.NewReader(in), "")
	require.NoError(t, err)
	assert.Equal(t, "kvraft", sheet.Lab)
	assert.EqualError(t, sheet.Err(), "0 of 100 points: "+kvPkg+" does not build: raft/raft.go:12:2: declared and not used: x")
}

// TestGradeTampering checks that each way of making a run look better than
// the student's code is caught.
func TestGradeTampering(t *testing.T) {
	t.Run("a test of one's own claims points", func(t *testing.T) {
		var s stream
		s.catalogue(t, []string{"TestBackup"})
		s.test(labPkg, "TestBackup", "fail", "part 3B, 3 points")
		s.test(labPkg, "TestMine", "pass", "part 3B, 85 points")
		s.test(kitModule+"/other", "TestOther", "pass", "part 3E, 85 points")
		s.event(labPkg, "", "fail", "")
		sheet := s.grade(t, "")
		assert.Equal(t, [2]int{97, 100}, [2]int{sheet.Points, sheet.Max})
		assert.Equal(t, []string{"TestMine"}, sheet.Ignored, "the other package's test is not even listed")
		assert.Len(t, sheet.Parts, 4)
		assert.EqualError(t, sheet.Err(), "97 of 100 points: not every test passed")
		var table bytes.Buffer
		require.NoError(t, sheet.WriteTable(&table))
		assert.Contains(t, table.String(), "\ntotal     97/100\nnot graded, as not the catalogue's: TestMine\n")
	})
	t.Run("the kit's checks are listed, for no points", func(t *testing.T) {
		var s stream
		s.catalogue(t, nil)
		s.test(labPkg, "TestSeedDriven", "fail", "part 3A, 15 points")
		s.test(labPkg, "TestSeedDriven", "pass") // -count=2: the failure stays
		s.test(labPkg, "TestCatalogueComplete", "pass")
		s.event(labPkg, "TestCatalogueComplete/sub", "fail", "")
		s.event(labPkg, "TestMine", "run", "")
		s.event(labPkg, "TestSeedDriven2", "run", "")
		sheet := s.grade(t, "")
		assert.Equal(t, [2]int{100, 100}, [2]int{sheet.Points, sheet.Max}, "the checks earn nothing, whatever they print")
		assert.Equal(t, []Check{{"TestSeedDriven", "fail"}, {"TestCatalogueComplete", "pass"}}, sheet.Checks, "a subtest's end is not the check's")
		assert.Equal(t, []string{"TestMine", "TestSeedDriven2"}, sheet.Ignored)
		var table bytes.Buffer
		require.NoError(t, sheet.WriteTable(&table))
		assert.Contains(t, table.String(), "\nthe kit's checks, for no points: TestSeedDriven fail, TestCatalogueComplete pass\nnot graded, as not the catalogue's: TestMine TestSeedDriven2\n")

		var started stream
		started.catalogue(t, nil)
		started.event(labPkg, "TestSeedDriven", "run", "")
		assert.Equal(t, []Check{{"TestSeedDriven", "unfinished"}}, started.grade(t, "").Checks)
	})
	t.Run("a catalogue test deleted", func(t *testing.T) {
		var s stream
		s.catalogue(t, []string{"TestFigure8", "TestCount"})
		s.event(labPkg, "", "pass", "")
		sheet := s.grade(t, "")
		assert.Equal(t, [2]int{93, 100}, [2]int{sheet.Points, sheet.Max}, "the denominator stays the catalogue's")
		assert.Equal(t, Result{Test: "TestCount", Part: "3B", Max: 3, Status: "not run"}, sheet.result("TestCount"))
		assert.Equal(t, []string{"TestCount", "TestFigure8"}, sheet.NotRun())
		assert.EqualError(t, sheet.Err(), "93 of 100 points, and not a full grade: 2 of the catalogue's 28 tests did not run to the end")
	})
	t.Run("a catalogue test replaced by a stub", func(t *testing.T) {
		var s stream
		s.catalogue(t, []string{"TestFigure8", "TestCount", "TestRejoin"})
		s.test(labPkg, "TestFigure8", "pass")
		s.test(labPkg, "TestCount", "pass", "part 3B, 30 points")
		s.test(labPkg, "TestRejoin/seed=1", "pass", "part 3B, 3 points") // a subtest's claim is not the catalogue's
		s.test(labPkg, "TestRejoin", "pass")
		s.event(labPkg, "", "pass", "")
		sheet := s.grade(t, "")
		assert.Equal(t, [2]int{90, 100}, [2]int{sheet.Points, sheet.Max})
		for _, name := range []string{"TestFigure8", "TestCount", "TestRejoin"} {
			assert.Equal(t, "not the catalogue's", sheet.result(name).Status, name)
			assert.Zero(t, sheet.result(name).Points, name)
		}
		assert.EqualError(t, sheet.Err(), "90 of 100 points: not every test passed")
	})
	t.Run("a subset run", func(t *testing.T) {
		sheet := gradeFile(t, "raft-planted-bug.json")
		assert.Equal(t, [2]int{11, 100}, [2]int{sheet.Points, sheet.Max})
		assert.Len(t, sheet.NotRun(), 24)
		assert.EqualError(t, sheet.Err(), "11 of 100 points, and not a full grade: 24 of the catalogue's 28 tests did not run to the end")
		var table bytes.Buffer
		require.NoError(t, sheet.WriteTable(&table))
		assert.Contains(t, table.String(), "\ntotal     11/100\n\nnot a full grade: 24 of the catalogue's 28 tests did not run to the end")
	})
	t.Run("a build failure", func(t *testing.T) {
		sheet := gradeFile(t, "raft-build-failed.json")
		assert.Equal(t, "does not build", sheet.Status)
		assert.Equal(t, "raft/raft.go:246:17: undefined: undefined", sheet.BuildError)
		assert.Equal(t, [2]int{0, 100}, [2]int{sheet.Points, sheet.Max})
		assert.Len(t, sheet.NotRun(), 28)
		assert.EqualError(t, sheet.Err(), "0 of 100 points: "+labPkg+" does not build: raft/raft.go:246:17: undefined: undefined")
		var table bytes.Buffer
		require.NoError(t, sheet.WriteTable(&table))
		assert.True(t, strings.HasPrefix(table.String(), "lab raft, package "+labPkg+": does not build\n    raft/raft.go:246:17: undefined: undefined\n"), table.String())
		assert.NotContains(t, table.String(), "not a full grade")
	})
	t.Run("a failure hidden by a second run", func(t *testing.T) {
		var s stream
		s.catalogue(t, []string{"TestCount"})
		s.graded(t, "TestCount", "fail")
		s.graded(t, "TestCount", "pass") // -count=2: the second run passes
		sheet := s.grade(t, "")
		assert.Equal(t, "fail", sheet.result("TestCount").Status)
		assert.Equal(t, []string{"TestCount ran 2 times: a sheet grades one run of each test"}, sheet.Shape)
		assert.Zero(t, sheet.Points)
	})
}

// TestGradeRun grades a run of four tests of the catalogue on our Raft
// with a planted bug (no log check on votes) that TestFigure8Unreliable
// catches on its first seed.
func TestGradeRun(t *testing.T) {
	s := gradeFile(t, "raft-planted-bug.json")
	assert.Equal(t, "FAIL", s.Status)
	require.Len(t, s.Tests, 28)
	seed := int64(1)
	fig8 := s.result("TestFigure8Unreliable")
	assert.Equal(t, Result{Test: "TestFigure8Unreliable", Part: "3C", Max: 4, Points: 0,
		Status: "fail", Seconds: fig8.Seconds, Seed: &seed,
		Replay: "go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v"}, fig8)
	for _, name := range []string{"TestInitialElection", "TestRejoin", "TestSnapshotBasic"} {
		r := s.result(name)
		assert.Equal(t, "pass", r.Status, name)
		assert.Equal(t, r.Max, r.Points, name)
		assert.Nil(t, r.Seed, name)
		assert.Empty(t, r.Replay, name)
	}
	assert.Equal(t, []Part{{"3A", 5, 15}, {"3B", 3, 30}, {"3C", 0, 32}, {"3D", 3, 23}}, s.Parts)

	var table bytes.Buffer
	require.NoError(t, s.WriteTable(&table))
	for _, want := range []string{
		"lab raft, package example.edu/course/lab/raft: FAIL\n" +
			"PRACTICE, NOT A GRADE: this sheet reads what a run says of itself, which can be edited (labsim grade -student grades); seeds 1, 2, 3\n" +
			"\ntest                           part  points  result\n",
		"TestInitialElection            3A       5/5  pass\nTestReElection                 3A       0/5  not run\n",
		"TestFigure8Unreliable          3C       0/4  fail (seed 1)\n    replay: go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v\n",
		"part 3A   5/15\npart 3B   3/30\npart 3C   0/32\npart 3D   3/23\ntotal     11/100\n",
	} {
		assert.Contains(t, table.String(), want)
	}

	b, err := json.Marshal(s)
	require.NoError(t, err)
	var back Sheet
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, *s, back, "the JSON sheet holds everything")
	assert.Contains(t, string(b), `"replay":"go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v"`)
}

// TestGradeUnfinished grades a run that crashed in the middle of a test:
// the test has no result, and the package none either.
func TestGradeUnfinished(t *testing.T) {
	var s stream
	s.b.WriteString("go: downloading something\n")
	s.event(labPkg, "TestInitialElection", "run", "")
	s.event(labPkg, "TestInitialElection", "output", "    catalogue_test.go:16: part 3A, 5 points\n")
	s.event(labPkg, "TestInitialElection/seed=1", "output", "panic: boom\n")
	sheet := s.grade(t, "raft")
	assert.Equal(t, "unfinished", sheet.Status)
	assert.Equal(t, Result{Test: "TestInitialElection", Part: "3A", Max: 5, Status: "unfinished"}, sheet.result("TestInitialElection"))
	assert.Len(t, sheet.NotRun(), 28)
	assert.Error(t, sheet.Err())
}

// TestGradeTestFilesDoNotBuild grades a run whose test files do not
// compile: the go command names the package with its test binary.
func TestGradeTestFilesDoNotBuild(t *testing.T) {
	in := `{"ImportPath":"` + labPkg + ` [` + labPkg + `.test]","Action":"build-output","Output":"# ` + labPkg + ` [` + labPkg + `.test]\n"}
{"ImportPath":"` + labPkg + ` [` + labPkg + `.test]","Action":"build-output","Output":"raft/catalogue_test.go:16:60: undefined: lab\n"}
{"ImportPath":"` + labPkg + ` [` + labPkg + `.test]","Action":"build-fail"}
{"Action":"start","Package":"` + labPkg + `"}
{"Action":"output","Package":"` + labPkg + `","Output":"FAIL\t` + labPkg + ` [build failed]\n"}
{"Action":"fail","Package":"` + labPkg + `","Elapsed":0,"FailedBuild":"` + labPkg + ` [` + labPkg + `.test]"}
`
	sheet, err := Grade(strings.NewReader(in), "")
	require.NoError(t, err)
	assert.Equal(t, "raft", sheet.Lab)
	assert.Equal(t, labPkg, sheet.Package)
	assert.EqualError(t, sheet.Err(), "0 of 100 points: "+labPkg+" does not build: raft/catalogue_test.go:16:60: undefined: lab")
}

func TestGradeBadInput(t *testing.T) {
	_, err := Grade(strings.NewReader("ok  \tp\t0.1s\n"), "")
	assert.EqualError(t, err, "kit: no go test -json events in the input (run go test -json)")
	_, err = Grade(strings.NewReader("{\"Action\":\"start\"}\n{\"Action\": oops}\n"), "")
	assert.ErrorContains(t, err, "kit: line 2 is not go test -json output: ")

	var s stream
	s.test("example.edu/x", "TestA", "pass")
	_, err = Grade(strings.NewReader(s.b.String()), "")
	assert.ErrorIs(t, err, ErrWhichLab)
	_, err = Grade(strings.NewReader(s.b.String()), "raft")
	assert.EqualError(t, err, "kit: the run has no package raft: run go test -json ./raft in the kit")
	_, err = Grade(strings.NewReader(s.b.String()), "raftt")
	assert.EqualError(t, err, `kit: unknown lab "raftt" (there are kvraft, raft)`)

	s.test("a/raft", "TestA", "pass")
	s.test("b/kvraft", "TestA", "pass")
	_, err = Grade(strings.NewReader(s.b.String()), "")
	assert.ErrorIs(t, err, ErrWhichLab)
	s.test("b/raft", "TestA", "pass")
	_, err = Grade(strings.NewReader(s.b.String()), "raft")
	assert.EqualError(t, err, "kit: the run has 2 packages named raft (a/raft, b/raft): grade one at a time")
}
