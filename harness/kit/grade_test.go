package kit

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gradeFile grades the go test -json stream in testdata/name.
func gradeFile(t *testing.T, name string) *Sheet {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	require.NoError(t, err)
	defer f.Close()
	s, err := Grade(f)
	require.NoError(t, err)
	return s
}

// TestGradeRun grades a run of four tests of the catalogue on our Raft
// with a planted bug (no log check on votes) that TestFigure8Unreliable
// catches on its first seed.
func TestGradeRun(t *testing.T) {
	s := gradeFile(t, "raft-planted-bug.json")
	assert.Equal(t, []Package{{"example.edu/course/lab/raft", "FAIL"}}, s.Packages)
	require.Len(t, s.Tests, 4)
	seed := int64(1)
	fig8 := Result{Package: "example.edu/course/lab/raft", Test: "TestFigure8Unreliable", Part: "3C", Max: 4, Points: 0,
		Status: "fail", Seconds: s.Tests[2].Seconds, Seed: &seed,
		Replay: "go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v"}
	assert.Equal(t, fig8, s.Tests[2])
	for _, i := range []int{0, 1, 3} {
		r := s.Tests[i]
		assert.Equal(t, "pass", r.Status, r.Test)
		assert.Equal(t, r.Max, r.Points, r.Test)
		assert.Nil(t, r.Seed, r.Test)
		assert.Empty(t, r.Replay, r.Test)
	}
	assert.Equal(t, []string{"TestInitialElection", "TestRejoin", "TestFigure8Unreliable", "TestSnapshotBasic"},
		[]string{s.Tests[0].Test, s.Tests[1].Test, s.Tests[2].Test, s.Tests[3].Test})
	assert.Equal(t, []Part{{"3A", 5, 5}, {"3B", 3, 3}, {"3C", 0, 4}, {"3D", 3, 3}}, s.Parts)
	assert.Equal(t, [2]int{11, 15}, [2]int{s.Points, s.Max})
	assert.True(t, s.Failed())

	var table bytes.Buffer
	require.NoError(t, s.WriteTable(&table))
	want := `package example.edu/course/lab/raft: FAIL

test                   part  points  result
TestInitialElection    3A       5/5  pass
TestRejoin             3B       3/3  pass
TestFigure8Unreliable  3C       0/4  fail (seed 1)
    replay: go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v
TestSnapshotBasic      3D       3/3  pass

part 3A   5/5
part 3B   3/3
part 3C   0/4
part 3D   3/3
total     11/15
`
	assert.Equal(t, want, table.String())

	b, err := json.Marshal(s)
	require.NoError(t, err)
	var back Sheet
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, *s, back, "the JSON sheet holds everything")
	assert.Contains(t, string(b), `"replay":"go test ./raft -run '^TestFigure8Unreliable$' -seed 1 -v"`)
}

func TestGradeBuildFailed(t *testing.T) {
	s := gradeFile(t, "raft-build-failed.json")
	assert.Equal(t, []Package{{"example.edu/course/lab/raft", "build failed"}}, s.Packages)
	assert.Empty(t, s.Tests)
	assert.True(t, s.Failed())
	var table bytes.Buffer
	require.NoError(t, s.WriteTable(&table))
	assert.Contains(t, table.String(), "package example.edu/course/lab/raft: build failed\n")
	assert.Contains(t, table.String(), "total     0/0\n")
}

// TestGradeUnfinished grades a run that crashed in the middle of a test:
// the test has no result, and the package none either.
func TestGradeUnfinished(t *testing.T) {
	in := `go: downloading something
{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    catalogue_test.go:18: part 3A, 5 points\n"}
{"Action":"run","Package":"p","Test":"TestA/seed=1"}
{"Action":"output","Package":"p","Test":"TestA/seed=1","Output":"panic: boom\n"}
`
	s, err := Grade(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []Package{{"p", "unfinished"}}, s.Packages)
	assert.Equal(t, []Result{{Package: "p", Test: "TestA", Part: "3A", Max: 5, Status: "unfinished"}}, s.Tests)
	assert.True(t, s.Failed())
}

func TestGradeBadInput(t *testing.T) {
	_, err := Grade(strings.NewReader("ok  \tp\t0.1s\n"))
	assert.EqualError(t, err, "kit: no go test -json events in the input (run go test -json)")
	_, err = Grade(strings.NewReader("{\"Action\":\"start\"}\n{\"Action\": oops}\n"))
	assert.ErrorContains(t, err, "kit: line 2 is not go test -json output: ")
}
