package kit

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/sim/simtest"
)

// gradeOwn grades the stream as a run the grader made on seeds, with the
// kit's records.
func (s *stream) gradeOwn(t *testing.T, seeds []int64, records []simtest.GradeRecord) *Sheet {
	t.Helper()
	events, err := readEvents(strings.NewReader(s.b.String()), nil)
	require.NoError(t, err)
	sheet, err := gradeEvents(events, "raft", &ownRun{seeds: seeds, records: records})
	require.NoError(t, err)
	return sheet
}

// table returns the sheet's table.
func (sh *Sheet) table(t *testing.T) string {
	var b bytes.Buffer
	require.NoError(t, sh.WriteTable(&b))
	return b.String()
}

// TestForgedRuns grades each way the issue found of making a run handed in
// look like full marks: each now scores 0 and names what it found, and
// the sheet says it is practice, not a grade.
func TestForgedRuns(t *testing.T) {
	catalogue := catalogue(t)
	var half []string // the first half of the catalogue
	for _, g := range catalogue[:len(catalogue)/2] {
		half = append(half, g.Name)
	}
	var others []string
	for _, g := range catalogue[len(catalogue)/2:] {
		others = append(others, g.Name)
	}

	t.Run("two -run halves concatenated", func(t *testing.T) {
		var s stream
		s.event(labPkg, "", "start", "")
		s.catalogue(t, others)
		s.event(labPkg, "", "pass", "")
		s.event(labPkg, "", "start", "")
		s.catalogue(t, half)
		s.event(labPkg, "", "pass", "")
		sheet := s.grade(t, "")
		assert.Equal(t, []string{"the input holds 2 runs of " + labPkg + ", not one: a sheet grades one run"}, sheet.Shape)
		assert.EqualError(t, sheet.Err(), "0 of 100 points: not one whole run of the catalogue: the input holds 2 runs of "+labPkg+", not one: a sheet grades one run")
	})
	t.Run("every fail edited to pass", func(t *testing.T) {
		var s stream
		s.event(labPkg, "", "start", "")
		s.catalogue(t, []string{"TestBackup", "TestFigure8"})
		s.graded(t, "TestBackup", "fail")
		s.graded(t, "TestFigure8", "fail")
		s.event(labPkg, "", "output", "FAIL\n")
		s.event(labPkg, "", "fail", "")
		edited := strings.ReplaceAll(s.b.String(), `"Action":"fail"`, `"Action":"pass"`)
		sheet, err := Grade(strings.NewReader(edited), "")
		require.NoError(t, err)
		assert.Equal(t, []string{
			"the package passed, yet its output says FAIL",
			`2 tests (TestBackup, TestFigure8) passed, yet its output says "simtest.go:270: FAILED with seed 1; replay with:"`,
		}, sheet.Shape)
		assert.Zero(t, sheet.Points)
		assert.Contains(t, sheet.table(t), "\nNOT ONE WHOLE RUN OF THE CATALOGUE, 0 points:\n    the package passed, yet its output says FAIL\n")
	})
	t.Run("every fail edited to pass in a real run", func(t *testing.T) {
		b, err := os.ReadFile("testdata/raft-planted-bug.json")
		require.NoError(t, err)
		edited := strings.ReplaceAll(string(b), `"Action":"fail"`, `"Action":"pass"`)
		sheet, err := Grade(strings.NewReader(edited), "")
		require.NoError(t, err)
		assert.Contains(t, sheet.Shape, "the package passed, yet its output says FAIL")
		assert.Contains(t, sheet.Shape, `TestFigure8Unreliable passed, yet its output says "simtest.go:108: FAILED with seed 1; replay with:"`)
		assert.Zero(t, sheet.Points)
	})
	t.Run("written from scratch", func(t *testing.T) {
		var s stream // a pass and the part line for each test, all the old sheet read
		for _, g := range catalogue {
			s.test(labPkg, g.Name, "pass", fmt.Sprintf("part %s, %d points", g.Part, g.Points))
		}
		s.event(labPkg, "", "pass", "")
		sheet := s.grade(t, "")
		require.Len(t, sheet.Shape, 1)
		assert.Equal(t, "28 tests ("+strings.Join(append(append([]string{}, half...), others...), ", ")+") passed without running a seed (no seed=N subtest)", sheet.Shape[0])
		assert.Zero(t, sheet.Points)

		var careful stream // one that mimics the harness in every event
		careful.event(labPkg, "", "start", "")
		careful.catalogue(t, nil)
		careful.event(labPkg, "", "pass", "")
		sheet = careful.grade(t, "")
		assert.False(t, sheet.Graded)
		assert.Equal(t, 100, sheet.Points, "what a run says of itself cannot be told from a run")
		assert.True(t, strings.HasPrefix(sheet.table(t), "lab raft, package "+labPkg+": ok\nPRACTICE, NOT A GRADE: "), sheet.table(t))
	})
	t.Run("the catalogue's tests rewritten to log their points", func(t *testing.T) {
		var s stream
		for _, g := range catalogue {
			s.test(labPkg, g.Name, "pass", fmt.Sprintf("part %s, %d points", g.Part, g.Points))
		}
		assert.Zero(t, s.grade(t, "").Points)
	})
	t.Run("a fixed seed", func(t *testing.T) {
		var s stream
		s.catalogue(t, nil, 7)
		s.event(labPkg, "", "pass", "")
		practice := s.grade(t, "")
		assert.Equal(t, []int64{7}, practice.Seeds, "practice shows the seeds the run used")
		assert.Contains(t, practice.table(t), "PRACTICE, NOT A GRADE: this sheet reads what a run says of itself, which can be edited (labsim grade -student grades); seeds 7\n")

		graded := s.gradeOwn(t, []int64{1234567, 2345678, 3456789}, nil)
		assert.Contains(t, graded.Shape, "28 tests ("+strings.Join(append(append([]string{}, half...), others...), ", ")+") ran seeds 7, not the seeds the grader chose (1234567, 2345678, 3456789)")
		assert.Zero(t, graded.Points)

		var mixed stream // one test on other seeds than the rest
		mixed.catalogue(t, []string{"TestCount"})
		mixed.graded(t, "TestCount", "pass", 7)
		assert.Equal(t, []string{"TestCount ran seeds 7, where TestInitialElection ran 1, 2, 3: one run runs every test on the same seeds"}, mixed.grade(t, "").Shape)
	})
	t.Run("a pass without its replay check", func(t *testing.T) {
		var s stream
		s.catalogue(t, []string{"TestCount"})
		s.event(labPkg, "TestCount", "run", "")
		s.event(labPkg, "TestCount", "output", "    catalogue_test.go:16: part 3B, 3 points\n")
		for _, sub := range []string{"seed=1", "seed=2", "seed=3"} {
			s.event(labPkg, "TestCount/"+sub, "run", "")
			s.event(labPkg, "TestCount/"+sub, "pass", "")
		}
		s.event(labPkg, "TestCount", "pass", "")
		assert.Equal(t, []string{"TestCount passed without its replay check (no replay=1 subtest passed)"}, s.grade(t, "").Shape)
	})
	t.Run("a pass with a failing subtest", func(t *testing.T) {
		var s stream
		s.catalogue(t, nil)
		s.event(labPkg, "TestCount/seed=9", "run", "")
		s.event(labPkg, "TestCount/seed=9", "fail", "")
		assert.Equal(t, []string{"TestCount passed, yet its subtest seed=9 failed"}, s.grade(t, "").Shape)
	})
	t.Run("a package failed with no test failing", func(t *testing.T) {
		var s stream
		s.event(labPkg, "", "start", "")
		s.catalogue(t, nil)
		s.event(labPkg, "", "fail", "")
		assert.Equal(t, []string{"the package failed, yet no test of it failed or was cut short"}, s.grade(t, "").Shape)

		var crashed stream // a test cut short by a crash explains it
		crashed.catalogue(t, []string{"TestCount"})
		crashed.event(labPkg, "TestCount", "run", "")
		crashed.event(labPkg, "", "fail", "")
		sheet := crashed.grade(t, "")
		assert.Empty(t, sheet.Shape)
		assert.Equal(t, 97, sheet.Points)
	})
}

// TestForgedOutput grades a run the grader made in which the code under
// test printed the lines go test frames a test's end with: a pass in the
// output that the kit's record of the run does not show scores 0.
func TestForgedOutput(t *testing.T) {
	seeds := []int64{1000001, 1000002, 1000003}
	var s stream
	s.catalogue(t, nil, seeds...)
	var records []simtest.GradeRecord
	for _, g := range catalogue(t)[1:] {
		records = append(records, simtest.GradeRecord{Test: g.Name, Part: g.Part, Points: g.Points, Seeds: seeds, Replayed: true, Passed: true})
	}
	full := append([]simtest.GradeRecord{{Test: "TestInitialElection", Seeds: seeds, Replayed: true, Passed: true}}, records...)
	sheet := s.gradeOwn(t, seeds, full)
	assert.Empty(t, sheet.Shape)
	assert.Equal(t, 100, sheet.Points)
	assert.True(t, sheet.Graded)
	assert.Contains(t, sheet.table(t), "\ngraded: labsim ran the catalogue on the student's files in a fresh kit, on seeds 1000001, 1000002, 1000003 ()\n")

	for _, tc := range []struct {
		edit func(r *simtest.GradeRecord)
		want string
	}{
		{func(r *simtest.GradeRecord) { r.Passed = false }, "TestInitialElection passed in the run's output, yet the kit's record says it failed"},
		{func(r *simtest.GradeRecord) { r.Seeds = []int64{7} }, "TestInitialElection passed in the run's output, yet the kit's record says it ran seeds 7, not the grader's (1000001, 1000002, 1000003)"},
		{func(r *simtest.GradeRecord) { r.Replayed = false }, "TestInitialElection passed in the run's output, yet the kit's record says its replay check did not pass"},
	} {
		edited := append([]simtest.GradeRecord{}, full...)
		edited[0].Seeds = seeds
		tc.edit(&edited[0])
		assert.Equal(t, []string{tc.want}, s.gradeOwn(t, seeds, edited).Shape)
	}
	assert.Equal(t, []string{"TestInitialElection passed in the run's output, yet the kit's record of the run has no outcome of it: output forged by the code under test?"},
		s.gradeOwn(t, seeds, records).Shape)
	assert.Equal(t, []string{"TestInitialElection has 2 outcomes in the kit's record of the run, not one"},
		s.gradeOwn(t, seeds, append(full, full[0])).Shape)
}

// catalogue returns the raft lab's catalogue.
func catalogue(t *testing.T) []Graded {
	cat, err := Catalogue("raft")
	require.NoError(t, err)
	return cat
}
