package labsim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/kit"
)

// TestGradeStudentRefused grades a kit whose student put an init that
// forges a run into the Raft package: the sheet refuses it, names file and
// line, scores 0, and writes the same as JSON; labsim exits 1.
func TestGradeStudentRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kit")
	require.NoError(t, kit.Write("raft", dir, kit.DefaultModule))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "raft", "forge.go"), []byte("package raft\n\nimport \"os\"\n\nfunc init() { os.Exit(0) }\n"), 0o644))
	sheet := filepath.Join(t.TempDir(), "sheet.json")
	r := labsim(nil, "grade", "-student", dir, "-json", sheet)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, `labsim grade: 0 of 100 points: the submission is refused: raft/forge.go:3: imports "os", which a student's file may not: it could reach the process, its files and its environment (and 2 more)`+"\n", r.stderr)
	assert.Contains(t, r.stdout, "lab raft, package lab/raft: refused\n")
	assert.Contains(t, r.stdout, "\nREFUSED, nothing ran, 0 points:\n"+
		`    raft/forge.go:3: imports "os", which a student's file may not: it could reach the process, its files and its environment`+"\n"+
		"    raft/forge.go:5: declares func init, which a student's file may not: it runs before the tests, outside them\n"+
		"    raft/forge.go:5: calls os.Exit, which a student's file may not: it ends the test run\n\ntotal     0/100\n")
	b, err := os.ReadFile(sheet)
	require.NoError(t, err)
	var got kit.Sheet
	require.NoError(t, json.Unmarshal(b, &got))
	assert.True(t, got.Graded)
	assert.Len(t, got.Refused, 3)
	assert.Zero(t, got.Points)
}

// TestGradeBadValues checks that each bad value of grade is refused before
// anything runs, with exit status 2 and one line that names it.
func TestGradeBadValues(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-student", "/no/such/dir"}, "-student /no/such/dir: no such file or directory"},
		{[]string{"-student", file}, "-student " + file + ": not a directory (a submission is a directory of the student's files)"},
		{[]string{"-student", empty}, "-student " + empty + ": no raft or kvraft directory, so which lab is it? (a submission has the student's files at their paths in the kit, such as raft/raft.go); name it with -lab"},
		{[]string{"-student", empty, "-in", file}, "-in and -student: give one (-student grades a student's files; -in reads a run, as practice)"},
		{[]string{"-in", file, "-secret", "s"}, "-secret goes with -student, which grades a student's files"},
		{[]string{"-in", file, "-module", "m"}, "-module goes with -student, which grades a student's files"},
		{[]string{"-in", file, "-timeout", "1m"}, "-timeout goes with -student, which grades a student's files"},
		{[]string{"-student", empty, "-timeout", "0"}, `invalid value "0" for flag -timeout: out of range: want more than 0s and at most 24h`},
		{[]string{"-student", empty, "-module", "a b"}, `-module "a b": module path "a b" has the character ' '`},
		{[]string{"-student", empty, "-lab", "kv"}, `-lab "kv": unknown lab; did you mean kvraft? (kvraft or raft)`},
	} {
		r := labsim(nil, append([]string{"grade"}, tc.args...)...)
		assert.Equal(t, exitUsage, r.code, strings.Join(tc.args, " "))
		assertOneError(t, r, "labsim grade: "+tc.msg)
	}
}
