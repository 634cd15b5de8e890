package labsim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchFindsAPlantedBugAndReplaysIt searches raft-write with a
// planted bug: labsim exits 1, prints the violation's schedule, its run's
// summary and the command that replays it, and writes its run file and
// page; the replay command ends with the same summary.
func TestSearchFindsAPlantedBugAndReplaysIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := labsim(nil, "search", "raft-write", "-strategy", "dfs", "-depth", "30", "-budget", "20000", "-parallel", "1",
		"-plant", "log truncated by a stale AppendEntries", "-out", dir)
	require.Equal(t, exitFailed, r.code, r.stdout+r.stderr)
	assert.Equal(t, "labsim search: the search found a violation\n", r.stderr)
	assert.Regexp(t, `^search raft-write -strategy dfs: \d+ states \(\d+ distinct\) over \d+ schedules? to depth \d+ in .* \(\d+ states/s on 1 worker\), stopped at a violation\n`, r.stdout)
	assert.Contains(t, r.stdout, "violation after ")
	assert.Contains(t, r.stdout, "applied entries are committed")
	summary := regexp.MustCompile(`(?m)^seed=1 virtual=\S+ events=\d+ trace=[0-9a-f]{16}$`).FindString(r.stdout)
	require.NotEmpty(t, summary, r.stdout)
	replay := regexp.MustCompile(`(?m)^replay: .*labsim (search .*)$`).FindStringSubmatch(r.stdout)
	require.Len(t, replay, 2, r.stdout)
	for _, ext := range []string{".json", ".html"} {
		_, err := os.Stat(filepath.Join(dir, "raft-write-applied-entries-are-committed"+ext))
		assert.NoError(t, err, ext)
	}

	args := strings.Fields(strings.ReplaceAll(replay[1], "'log truncated by a stale AppendEntries'", "BUG"))
	for i, a := range args {
		if a == "BUG" {
			args[i] = "log truncated by a stale AppendEntries"
		}
	}
	again := labsim(nil, args...)
	assert.Equal(t, exitFailed, again.code, again.stdout+again.stderr)
	assert.Contains(t, again.stdout, summary+"\n", "the replay ends with the same summary")

	v := labsim(nil, "view", filepath.Join(dir, "raft-write-applied-entries-are-committed.json"), "-out", filepath.Join(dir, "v.html"))
	assert.Equal(t, exitOK, v.code, v.stderr)
	assert.Contains(t, v.stdout, "search raft-write seed 1")
}

// TestSearchGoalAndCorrectCode checks that a BFS on the correct code finds
// the goal's shortest schedule and no violation.
func TestSearchGoalAndCorrectCode(t *testing.T) {
	r := labsim(nil, "search", "raft-write", "-depth", "12", "-goal")
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "stopped at the goal\n")
	assert.Regexp(t, `goal: some server applied each write after \d+ steps: [0-9,]+\n`, r.stdout)
	r = labsim(nil, "search", "raft-write", "-depth", "4")
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `\d+ states \(\d+ distinct\) over \d+ schedules to depth 4 in .*, complete\n$`, r.stdout)
}

// TestSearchBadValues checks that each bad value is refused with exit
// status 2 and a line that names it.
func TestSearchBadValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"raft-wrte"}, `unknown search scenario "raft-wrte"; did you mean raft-write? ('labsim search list' shows them)`},
		{[]string{"raft-write", "-strategy", "astar"}, `search: unknown strategy "astar" (want bfs, dfs, pct or guided)`},
		{[]string{"raft-write", "-depth", "0"}, `invalid value "0" for flag -depth: out of range: want 1 to 10000`},
		{[]string{"raft-write", "-strategy", "dfs", "-budget", "0"}, "search: a dfs search needs a budget of states or of wall time"},
		{[]string{"raft-write", "-plant", "no bug"}, `search: scenario raft-write has no bug "no bug"`},
		{[]string{"raft-write", "-replay", "0,x"}, `-replay 0,x: search: path step "x" is not an option index`},
		{[]string{"raft-write", "-replay", "5"}, "-replay 5: search: the path does not replay: step 0 asks for option 5 of 1"},
	} {
		r := labsim(nil, append([]string{"search"}, tc.args...)...)
		assert.Equal(t, exitUsage, r.code, "%v", tc.args)
		assert.Contains(t, r.stderr, tc.msg+"\n", "%v", tc.args)
	}
	r := labsim(nil, "search", "list")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "raft-write-crash ")
	r = labsim(nil, "search", "raft-write", "-plant", "list")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "votedFor not persisted\n")
}
