package labsim

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProgressPlainLines checks that progress off a terminal is plain
// lines: no carriage returns, no escape codes, a line per tenth.
func TestProgressPlainLines(t *testing.T) {
	r := labsim(nil, "sweep", "flaky", "-seeds", "50", "-parallel", "1", "-out", t.TempDir())
	require.Equal(t, exitFailed, r.code)
	assert.NotContains(t, r.stderr, "\r")
	assert.NotContains(t, r.stderr, "\033")
	assert.Contains(t, r.stderr, "\nflaky: 25/50 seeds, 13 failing, 0s elapsed")
	assert.Contains(t, r.stderr, "\nflaky: 50/50 seeds, 25 failing, 0s elapsed\n")
	lines := strings.Count(r.stderr, "\n")
	assert.GreaterOrEqual(t, lines, 11, "the first line and one per tenth")
	assert.LessOrEqual(t, lines, 13, r.stderr) // and perhaps the odd one a second

	e := fakeEnv()
	e.experiments = e.experiments[:1]
	r = labsim(e, "figures", "-out", t.TempDir())
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "figures: 0/1 experiments, 0s elapsed; running tiny\n")
	assert.Contains(t, r.stderr, "figures: 1/1 experiments, 0s elapsed\n")
	assert.NotContains(t, r.stderr, "\r")
}

// TestProgressOnATerminal checks that on a terminal progress is one line
// redrawn in place with a bar, and cleared at the end.
func TestProgressOnATerminal(t *testing.T) {
	e := fakeEnv()
	e.tty = true
	r := labsim(e, "sweep", "steady", "-seeds", "20", "-out", t.TempDir())
	require.Equal(t, exitOK, r.code)
	assert.NotContains(t, r.stderr, "\n")
	assert.Contains(t, r.stderr, "\rsteady [###############...............] 10/20 seeds, 0s elapsed\033[K")
	assert.True(t, strings.HasSuffix(r.stderr, "\r\033[K"), "cleared: %q", r.stderr)
	assert.Contains(t, r.stdout, "steady: 20 seeds")
}

// TestProgressQuiet checks that nothing shows before the quiet time.
func TestProgressQuiet(t *testing.T) {
	for _, tty := range []bool{false, true} {
		e := fakeEnv()
		e.tty, e.quiet = tty, time.Hour
		r := labsim(e, "sweep", "flaky", "-seeds", "20", "-out", t.TempDir())
		assert.Equal(t, exitFailed, r.code)
		assert.Equal(t, "labsim sweep: 10 of 20 seeds failed\n", r.stderr)
	}
}

func TestProgressLine(t *testing.T) {
	p := &progress{what: "kv", unit: "seeds", total: 1000, even: true, done: 250, failed: 2, running: []string{"a", "b"}}
	assert.Equal(t, "kv: 250/1000 seeds, 2 failing, 1m30s elapsed, about 4m30s left; running a, b", p.line(90*time.Second, false))
	assert.Equal(t, "kv [#######.......................] 250/1000 seeds, 2 failing, 1m30s elapsed, about 4m30s left; running a, b",
		p.line(90*time.Second, true))
	p = &progress{what: "demo", total: 200, even: true, done: 50}
	assert.Equal(t, "demo: 25%, 3s elapsed, about 9s left", p.line(3*time.Second, false))
	p.done = 199
	assert.Equal(t, "demo: 99%, 3s elapsed", p.line(3*time.Second, false), "no estimate under half a second")
}

func TestTimeLeft(t *testing.T) {
	left, ok := timeLeft(10*time.Second, 1, 4)
	assert.True(t, ok)
	assert.Equal(t, 30*time.Second, left)
	_, ok = timeLeft(10*time.Second, 0, 4)
	assert.False(t, ok, "nothing done: no estimate")
	_, ok = timeLeft(10*time.Second, 4, 4)
	assert.False(t, ok, "all done")
}

func TestRoughDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "0s",
		1499 * time.Millisecond: "1s",
		59 * time.Second:        "59s",
		65 * time.Second:        "1m05s",
		2*time.Hour + 10*time.Minute + 29*time.Second: "2h10m",
	} {
		assert.Equal(t, want, roughDuration(d), "%v", d)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour:               "1h",
		10 * time.Minute:        "10m",
		90 * time.Second:        "1m30s",
		time.Hour + time.Minute: "1h1m",
		1500 * time.Millisecond: "1.5s",
	} {
		assert.Equal(t, want, shortDuration(d), "%v", d)
	}
}

func TestProgressEstimatesOnlyEvenWork(t *testing.T) {
	p := &progress{what: "figures", unit: "experiments", total: 10, done: 5}
	assert.Equal(t, "figures: 5/10 experiments, 1m00s elapsed", p.line(time.Minute, false))
}
