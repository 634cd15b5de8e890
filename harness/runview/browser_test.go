package runview

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/runview/viewtest"
	"github.com/replab/replab/sim"
)

var (
	screenshotTo = flag.String("screenshot", "", "TestScreenshot writes a screenshot of the page of -runfile, opened on its violation, to `FILE` (docs/viewer.png)")
	screenshotOf = flag.String("runfile", "", "the run `FILE` TestScreenshot and BenchmarkChromiumBigRun draw (default: a synthetic run)")
)

// needChromium skips the test, saying how to install the browser, when it
// is not installed.
func needChromium(t testing.TB) {
	t.Helper()
	if err := viewtest.Available(); err != nil {
		t.Skipf("skipped: %v", err)
	}
}

// openPage writes f's page into a temporary directory and opens it in a
// fresh headless Chromium of width × height pixels; the test fails at its
// end if the page's scripts threw.
func openPage(t testing.TB, f *runfile.File, width, height int) *viewtest.Browser {
	t.Helper()
	dir, page := writePage(t, f)
	b, err := viewtest.Start(filepath.Join(dir, "profile"), width, height)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, b.Close()) })
	require.NoError(t, b.Open("file://"+page))
	t.Cleanup(func() { assert.Empty(t, b.Errors(), "the page's scripts threw") })
	return b
}

// writePage writes f's page into a temporary directory, and returns the
// directory and the page's path.
func writePage(t testing.TB, f *runfile.File) (dir, page string) {
	t.Helper()
	dir = t.TempDir()
	page = filepath.Join(dir, "run.html")
	out, err := os.Create(page)
	require.NoError(t, err)
	require.NoError(t, Write(out, f))
	require.NoError(t, out.Close())
	return dir, page
}

// panel reads the page's panel.
func panel(t *testing.T, b *viewtest.Browser) viewtest.Panel {
	t.Helper()
	p, err := b.Panel()
	require.NoError(t, err)
	return p
}

// checkPanel checks that the page's cursor is at c and its state panel
// shows what the run file says of every host's role and term there.
func checkPanel(t *testing.T, b *viewtest.Browser, f *runfile.File, c int) {
	t.Helper()
	p := panel(t, b)
	require.Equal(t, c, p.Cursor, "the cursor")
	want := viewtest.Want(f, c)
	require.Len(t, p.Hosts, len(want), "the hosts that show state")
	for h, w := range want {
		got := p.Hosts[h]
		require.Equal(t, w.Status, got.Status, "host %s after event %d", h, c)
		for _, field := range []string{"raft.role", "raft.term"} {
			if w.Status == "down" {
				assert.Equal(t, "down", got.Fields[field], "host %s's %s after event %d: down", h, field, c)
				continue
			}
			assert.Equal(t, w.Fields[field], got.Fields[field], "host %s's %s after event %d", h, field, c)
		}
	}
}

// TestViewerInChromium loads the page of a run with a violation in a real
// browser, and checks what its DOM shows as keys are pressed.
func TestViewerInChromium(t *testing.T) {
	needChromium(t)
	f := small()
	b := openPage(t, f, 1500, 820)

	// it opens on the violation, with the violating operation and its
	// witness named as the verdict names them
	checkPanel(t, b, f, f.Verdict.At)
	assert.Equal(t, []viewtest.VerdictOp{{Op: f.Verdict.Ops[0], Role: "violating"}, {Op: f.Verdict.Ops[1], Role: "witness"}},
		panel(t, b).Ops, "the verdict's operations")
	var verdict string
	require.NoError(t, b.Eval(`document.getElementById('verdict').textContent`, &verdict))
	assert.Equal(t, "linearizability: "+f.Verdict.Problem, verdict)
	hosts := panel(t, b).Hosts
	assert.Equal(t, "leader", hosts["0"].Fields["raft.role"], "the deposed leader still thinks it leads")
	assert.Equal(t, "leader", hosts["1"].Fields["raft.role"])
	assert.NotEqual(t, hosts["0"].Fields["raft.term"], hosts["1"].Fields["raft.term"], "in another term")

	// ← and → step one event
	require.NoError(t, b.Key("ArrowLeft"))
	checkPanel(t, b, f, f.Verdict.At-1)
	require.NoError(t, b.Key("ArrowRight"))
	require.NoError(t, b.Key("ArrowRight"))
	checkPanel(t, b, f, f.Verdict.At+1)

	// from the start, → through the election: the roles and terms change
	// as the run file says
	require.NoError(t, b.Key("Home"))
	checkPanel(t, b, f, 0)
	roles := map[string]bool{}
	for c := 1; c <= 12; c++ {
		require.NoError(t, b.Key("ArrowRight"))
		checkPanel(t, b, f, c)
		roles[panel(t, b).Hosts["0"].Fields["raft.role"]] = true
	}
	assert.Equal(t, map[string]bool{"candidate": true, "leader": true}, roles, "s0 is seen a candidate, then leader")

	// F jumps to the next fault; twice, to the kill; → onto the kill
	// itself, and s2 shows down
	require.NoError(t, b.Key("f"))
	require.NoError(t, b.Key("f"))
	cursor := panel(t, b).Cursor
	require.Equal(t, "kill s2", f.Events[cursor].What, "the second fault")
	for f.Events[cursor].Kind != sim.KindKill {
		require.NoError(t, b.Key("ArrowRight"))
		c := panel(t, b).Cursor
		require.Equal(t, cursor+1, c, "→ steps one event")
		cursor = c
	}
	checkPanel(t, b, f, cursor)
	assert.Equal(t, "down", panel(t, b).Hosts["2"].Status, "s2 is down after its kill")

	// V goes back to the violation
	require.NoError(t, b.Key("v"))
	checkPanel(t, b, f, f.Verdict.At)
}

// TestViewerFiltersAndJumps checks the keys that jump to a host's next
// event, the filters that stepping obeys, and zooming.
func TestViewerFiltersAndJumps(t *testing.T) {
	needChromium(t)
	f := small()
	b := openPage(t, f, 1200, 700)
	require.NoError(t, b.Key("Home"))

	// N: the next event of the host chosen
	require.NoError(t, b.Eval(`document.getElementById('who').value = 'h2'`, nil))
	next := func(from int, ok func(e runfile.Event) bool) int {
		for i := from + 1; i < len(f.Events); i++ {
			if ok(f.Events[i]) {
				return i
			}
		}
		return from
	}
	onS2 := func(e runfile.Event) bool { return e.Host == 2 }
	at := 0
	for range 3 {
		require.NoError(t, b.Key("n"))
		at = next(at, onS2)
		require.Equal(t, at, panel(t, b).Cursor, "N: s2's next event")
	}

	// with timers and s1 filtered out, → skips their events
	require.NoError(t, b.Eval(`document.querySelector('input[data-kind=timer]').click()`, nil))
	require.NoError(t, b.Eval(`document.querySelector('input[data-host="1"]').click()`, nil))
	shown := func(e runfile.Event) bool { return e.Kind != sim.KindTimer && e.Host != 1 }
	for range 10 {
		require.NoError(t, b.Key("ArrowRight"))
		at = next(at, shown)
		require.Equal(t, at, panel(t, b).Cursor, "→ skips what the filters hide")
	}

	// + halves the time in view, − doubles it, 0 shows the whole run
	type span struct{ T0, T1 float64 }
	view := func() span {
		var v span
		require.NoError(t, b.Eval(`window.runView.view`, &v))
		return v
	}
	before := view()
	require.NoError(t, b.Key("+"))
	assert.InDelta(t, (before.T1-before.T0)/2, view().T1-view().T0, 1, "+ halves the span")
	require.NoError(t, b.Key("-"))
	assert.InDelta(t, before.T1-before.T0, view().T1-view().T0, 1, "− doubles it back")
	require.NoError(t, b.Key("0"))
	all := view()
	assert.LessOrEqual(t, all.T0, float64(f.Events[0].At))
	assert.GreaterOrEqual(t, all.T1, float64(f.Events[len(f.Events)-1].At))
}

// TestScreenshot writes the screenshot of the viewer in the docs, when
// asked to with -screenshot:
//
//	go test ./harness/runview -run Screenshot -runfile RUN.json -screenshot $PWD/docs/viewer.png
func TestScreenshot(t *testing.T) {
	if *screenshotTo == "" {
		t.Skip("skipped: -screenshot FILE says where to write it")
	}
	needChromium(t)
	f := small()
	if *screenshotOf != "" {
		var err error
		f, err = runfile.Load(*screenshotOf)
		require.NoError(t, err)
	}
	b := openPage(t, f, 1500, 860)
	require.Equal(t, max(f.Verdict.At, 0), panel(t, b).Cursor, "it opens on the violation")
	png, err := b.Screenshot()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(*screenshotTo, png, 0o644))
}

// TestViewerOfAPassingRunOpensAtTheStart checks that a run with no
// violation opens on its first event.
func TestViewerOfAPassingRunOpensAtTheStart(t *testing.T) {
	needChromium(t)
	f := small()
	f.Verdict = runfile.Verdict{At: -1}
	b := openPage(t, f, 1200, 700)
	checkPanel(t, b, f, 0)
	var text string
	require.NoError(t, b.Eval(`document.getElementById('verdict').textContent`, &text))
	assert.Contains(t, text, "passed")
	var disabled bool
	require.NoError(t, b.Eval(`document.getElementById('violation').disabled`, &disabled))
	assert.True(t, disabled, "there is no violation to go to")
}

// BenchmarkChromiumBigRun measures the page of a big run in Chromium (a
// synthetic one of 5 hosts and 30 s of virtual time, about 40 000 events,
// or the run file -runfile names): its size,
// the time from navigating to the page's load (the viewer drawn), the
// time the page takes to handle a → (drawing included) zoomed in and with
// the whole run in view, and to draw the whole run; ns/op is a →'s round
// trip over the DevTools pipe, to the next frame.
//
//	go test ./harness/runview -run '^$' -bench ChromiumBigRun -benchtime 20x [-runfile FILE]
func BenchmarkChromiumBigRun(b *testing.B) {
	needChromium(b)
	f := synth(synthRun{hosts: 5, length: 30e9, heartbeat: 17e6, clients: 8})
	if *screenshotOf != "" {
		var err error
		f, err = runfile.Load(*screenshotOf)
		require.NoError(b, err)
	}
	dir, page := writePage(b, f)
	fi, err := os.Stat(page)
	require.NoError(b, err)
	br, err := viewtest.Start(filepath.Join(dir, "profile"), 1500, 820)
	require.NoError(b, err)
	defer br.Close()
	require.NoError(b, br.Open("file://"+page))
	var opened float64 // ms from navigation start to the viewer drawn
	require.NoError(b, br.Eval(`window.runView.readyAt`, &opened))
	b.ResetTimer()
	var inPage float64
	for range b.N {
		require.NoError(b, br.Key("ArrowRight"))
		var ms float64
		require.NoError(b, br.Eval(`new Promise(r => requestAnimationFrame(() => r(window.runView.lastStepMs)))`, &ms))
		inPage += ms
	}
	b.StopTimer()
	// and with the whole run in view, every event and message drawn
	require.NoError(b, br.Key("0"))
	var zoomAll float64
	require.NoError(b, br.Eval(`window.runView.lastStepMs`, &zoomAll))
	b.ReportMetric(zoomAll, "zoom-whole-run-ms")
	var whole float64
	const wholeSteps = 10
	for range wholeSteps {
		require.NoError(b, br.Key("ArrowRight"))
		var ms float64
		require.NoError(b, br.Eval(`new Promise(r => requestAnimationFrame(() => r(window.runView.lastStepMs)))`, &ms))
		whole += ms
	}
	b.ReportMetric(whole/wholeSteps, "step-whole-run-ms")
	b.ReportMetric(float64(len(f.Events)), "events")
	b.ReportMetric(float64(fi.Size())/1e6, "page-MB")
	b.ReportMetric(opened, "open-ms")
	b.ReportMetric(inPage/float64(b.N), "step-handler-ms")
	fmt.Fprintf(os.Stderr, "page %s: %d events, %.2f MB, opened in %.0f ms\n", page, len(f.Events), float64(fi.Size())/1e6, opened)
}
