package labsim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
)

// planted is a planted bug that fails seed 1 of kv-linearizability within
// a virtual second: its runs are small.
var planted = []string{"kv-linearizability", "-plant", "entries applied before they commit"}

func TestRecordThenReplay(t *testing.T) {
	dir := t.TempDir()
	r := labsim(realEnv(), append(append([]string{"record"}, planted...), "-seed", "1", "-out", dir)...)
	require.Equal(t, exitFailed, r.code, "the planted bug fails the seed: %s", r.stderr)
	file := filepath.Join(dir, "kv-linearizability-seed1.run.json")
	assert.Regexp(t, `^wrote `+regexp.QuoteMeta(file)+`: kv-linearizability -plant "entries applied before they commit" seed 1, \d+ events on 10 hosts, \d+ operations, \d+ faults?, `, r.stdout)
	assert.Contains(t, r.stdout, "  replay: go run ./cmd/labsim replay "+file+"\n")
	assert.Contains(t, r.stderr, "labsim record: seed 1: FAIL (")
	f, err := runfile.Load(file)
	require.NoError(t, err)
	assert.Equal(t, "kv-linearizability", f.Scenario)
	assert.Equal(t, "entries applied before they commit", f.Plant)
	assert.Equal(t, int64(1), f.Seed)
	assert.NotEmpty(t, f.Verdict.Kind)

	again := labsim(realEnv(), "replay", file)
	require.Equal(t, exitOK, again.code, again.stderr)
	assert.Equal(t, "replayed kv-linearizability -plant \"entries applied before they commit\" seed 1: same trace (hash "+f.Summary.Hash, strings.SplitN(again.stdout, ",", 2)[0])

	// A file whose events were changed by hand no longer replays: replay
	// says where the traces part.
	text, err := os.ReadFile(file)
	require.NoError(t, err)
	send := regexp.MustCompile(`\{"t":\d+,"k":"send","h":\d+,"p":\d+,"id":(\d+),"n":(\d+)`).FindSubmatchIndex(text)
	require.NotNil(t, send)
	edited := string(text[:send[4]]) + "99999" + string(text[send[5]:])
	bad := filepath.Join(dir, "edited.run.json")
	require.NoError(t, os.WriteFile(bad, []byte(edited), 0o644))
	diff := labsim(realEnv(), "replay", bad)
	assert.Equal(t, exitFailed, diff.code)
	assert.Regexp(t, `the traces part at event \d+:\n  recorded: send \S+→\S+ call \d+ \S+ 99999 B, at \S+\n  replayed: send \S+→\S+ call \d+ \S+ \d+ B, at \S+\n`, diff.stdout)
	assert.Contains(t, diff.stderr, "labsim replay: "+bad+" does not replay: the trace differs\n")

	out := filepath.Join(dir, "again.run.json")
	mine := labsim(realEnv(), "replay", bad, "-out", out)
	require.Equal(t, exitFailed, mine.code)
	assert.Contains(t, mine.stdout, "wrote "+out+"\n")
	back, err := runfile.Load(out)
	require.NoError(t, err)
	assert.Equal(t, f, back, "the replay's own run file is the recorded one")
}

func TestReplayRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := tinyRun()
	good.Scenario = "kv-linearizabilty"
	for _, tc := range []struct {
		name  string
		write func() string
		wants string
	}{
		{"missing", func() string { return filepath.Join(dir, "none.run.json") }, "none.run.json: no such file or directory"},
		{"a scenario", func() string { return "kv-linearizability" }, "kv-linearizability is a scenario, not a run file: 'labsim record kv-linearizability -seed N' writes one"},
		{"another version", func() string {
			f := tinyRun()
			f.Version = 2
			return writeRun(t, dir, "v2.json", f)
		}, "v2.json: run file version 2; this labsim reads version 1"},
		{"truncated", func() string {
			path := writeRun(t, dir, "whole.json", tinyRun())
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, b[:len(b)/2], 0o644))
			return path
		}, "whole.json: run file: truncated after"},
		{"edited", func() string {
			f := tinyRun()
			f.Events[1].Host = 5
			return writeRun(t, dir, "edited.json", f)
		}, "edited.json: run file: events[1].h: host 5 out of range (2 hosts)"},
		{"unknown scenario", func() string { return writeRun(t, dir, "typo.json", good) }, `typo.json: unknown scenario "kv-linearizabilty"; did you mean kv-linearizability?`},
		{"unknown bug", func() string {
			f := tinyRun()
			f.Scenario, f.Plant = "kv-linearizability", "no such bug"
			return writeRun(t, dir, "bug.json", f)
		}, `bug.json: unknown planted bug "no such bug"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := labsim(realEnv(), "replay", tc.write())
			assert.Equal(t, exitUsage, r.code)
			assertOneError(t, r, tc.wants)
		})
	}
}

func TestRecordRefuses(t *testing.T) {
	r := labsim(realEnv(), "record", "kv-linearizabilty")
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, `labsim record: unknown scenario "kv-linearizabilty"; did you mean kv-linearizability?`)
	r = labsim(realEnv(), "record", "kv-linearizability", "-out", filepath.Join(t.TempDir(), "no", "such.json"))
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, "/no does not exist")
	r = labsim(realEnv(), "record", "kv-linearizability", "-plant", "nope")
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, `unknown planted bug "nope"`)

	// A scenario whose seeds are no testbed runs has no run file to give.
	r = labsim(nil, "record", "steady", "-out", t.TempDir())
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "labsim record: scenario steady records no run file")
}

// TestSweepWritesTheRunFileOfAFailingSeed checks that a failing seed's
// run file is written beside porcupine's page, and replays.
func TestSweepWritesTheRunFileOfAFailingSeed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := labsim(realEnv(), append(append([]string{"sweep"}, planted...), "-seeds", "1", "-out", dir)...)
	require.Equal(t, exitFailed, r.code, r.stderr)
	file := filepath.Join(dir, "kv-linearizability-seed1.run.json")
	page := filepath.Join(dir, "kv-linearizability-seed1.run.html")
	assert.Contains(t, r.stdout, "  run file: "+file+" (go run ./cmd/labsim replay "+file+")\n  its page: "+page+" (open it in a browser)\n")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), `<script type="application/json" id="run">`, "the run file's page")
	again := labsim(realEnv(), "replay", file)
	assert.Equal(t, exitOK, again.code, again.stdout+again.stderr)

}
