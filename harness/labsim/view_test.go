package labsim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/runview/viewtest"
	"github.com/replab/replab/sim"
)

// tinyRun is a run file of two hosts, one message and one operation that
// the verdict names.
func tinyRun() *runfile.File {
	return &runfile.File{
		Version: runfile.Version, Scenario: "tiny-run", Seed: 7, Hosts: []string{"a", "b"},
		Events: []runfile.Event{
			{At: 1, Kind: sim.KindSend, Host: 0, Peer: 1, ID: 1, What: "Ping"},
			{At: 2, Kind: sim.KindDeliver, Host: 1, Peer: 0, ID: 1, What: "Ping"},
		},
		States:  []runfile.State{{Event: 1, Host: 1, Fields: []sim.Field{{Name: "n", Value: "1"}}}},
		Ops:     []runfile.Op{{Client: 0, Call: 0, Return: 3, Input: "get x", Output: "2"}},
		Verdict: runfile.Verdict{Problem: "get x returned 2", Kind: "linearizability", Ops: []int{0}, At: 1},
		Summary: runfile.Summary{Now: 3, Events: 2, Hash: "0123456789abcdef"},
	}
}

// writeRun writes v into dir/name, as JSON (a run file unchecked, as a
// hand might edit it) and returns the path.
func writeRun(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

func TestViewWritesThePage(t *testing.T) {
	dir := t.TempDir()
	file := writeRun(t, dir, "run.json", tinyRun())
	r := labsim(nil, "view", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	page := filepath.Join(dir, "run.html")
	assert.Equal(t, "wrote "+page+": tiny-run seed 7, 2 events on 2 hosts, failed (linearizability), opening on event 1 where it shows\n", r.stdout)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), `<script type="application/json" id="run">`)
	assert.Contains(t, string(html), "<title>tiny-run seed 7: linearizability</title>")

	other := filepath.Join(dir, "other.html")
	r = labsim(nil, "view", "-out", other, file)
	require.Equal(t, exitOK, r.code, r.stderr)
	again, err := os.ReadFile(other)
	require.NoError(t, err)
	assert.Equal(t, html, again, "the same page, where -out says")
}

func TestViewRefusesABadFile(t *testing.T) {
	dir := t.TempDir()
	v2 := tinyRun()
	v2.Version = 2
	misfit := tinyRun()
	misfit.Verdict.Ops = []int{3}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"missing", filepath.Join(dir, "nope.json"), "nope.json: no such file or directory"},
		{"not json", writeRun(t, dir, "text.json", "just a string"), "text.json: run file: a JSON string where a run's object belongs"},
		{"truncated", func() string {
			p := writeRun(t, dir, "cut.json", tinyRun())
			b, _ := os.ReadFile(p)
			require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
			return p
		}(), "cut.json: run file: truncated after"},
		{"other version", writeRun(t, dir, "v2.json", v2), "v2.json: run file version 2; this labsim reads version 1"},
		{"unknown field", writeRun(t, dir, "odd.json", map[string]any{"version": 1, "sceanrio": "x"}), `odd.json: run file: json: unknown field "sceanrio"`},
		{"misfit", writeRun(t, dir, "misfit.json", misfit), "misfit.json: run file: verdict.ops[0]: no op 3 (1 ops)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := labsim(nil, "view", tc.file)
			assert.Equal(t, exitUsage, r.code)
			assertOneError(t, r, tc.want)
		})
	}
	file := writeRun(t, dir, "run.html", tinyRun())
	r := labsim(nil, "view", file)
	assert.Equal(t, exitUsage, r.code)
	assertOneError(t, r, "-out "+file+": that is the run file itself")
}

// TestViewOfAPlantedBugInChromium shrinks a planted bug's failing seed,
// draws the shrunk run's page with labsim view, and drives the page in
// Chromium: it opens on the violation, lists the verdict's operations,
// and as ← and → move the cursor (back to the violation, and past it)
// shows every server's state as the run file has it.
func TestViewOfAPlantedBugInChromium(t *testing.T) {
	if err := viewtest.Available(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "stale.run.json")
	r := labsim(realEnv(), "shrink", "kv-linearizability", "-seed", "1", "-plant", "reads served from any server's local state", "-out", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = labsim(realEnv(), "view", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	f, err := runfile.Load(file)
	require.NoError(t, err)
	require.NotNil(t, f.Shrunk, "the bug's shrunk run")
	require.NotEmpty(t, f.Verdict.Ops)

	b, err := viewtest.Start(filepath.Join(dir, "profile"), 1400, 800)
	require.NoError(t, err)
	defer func() { assert.NoError(t, b.Close()) }()
	require.NoError(t, b.Open("file://"+pagePath(file)))
	p, err := b.Panel()
	require.NoError(t, err)
	assert.Equal(t, f.Verdict.At, p.Cursor, "it opens on the violation")
	var ops []viewtest.VerdictOp
	for i, o := range f.Verdict.Ops {
		ops = append(ops, viewtest.VerdictOp{Op: o, Role: map[bool]string{true: "violating", false: "witness"}[i == 0]})
	}
	assert.Equal(t, ops, p.Ops, "the verdict's operations, the violating one first")

	check := func(c int) {
		t.Helper()
		p, err := b.Panel()
		require.NoError(t, err)
		require.Equal(t, c, p.Cursor)
		want := viewtest.Want(f, c)
		require.Len(t, p.Hosts, len(want), "the servers, which show state; the clerks show none")
		for h, w := range want {
			assert.Equal(t, w.Status, p.Hosts[h].Status, "host %s after event %d", h, c)
			for name, v := range w.Fields {
				assert.Equal(t, v, p.Hosts[h].Fields[name], "host %s's %s after event %d", h, name, c)
			}
		}
	}
	check(f.Verdict.At)
	for i := 1; i <= 3; i++ {
		require.NoError(t, b.Key("ArrowLeft"))
		check(f.Verdict.At - i)
	}
	for i := -2; i <= 2; i++ {
		require.NoError(t, b.Key("ArrowRight"))
		check(f.Verdict.At + i)
	}
	assert.Empty(t, b.Errors(), "the page's scripts threw")
}
