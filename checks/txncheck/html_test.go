package txncheck

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replab/replab/chaos/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/page.html from TestHTMLIsAsDrawn's history")

// TestHTMLIsAsDrawn pins the page of TestHTML's history byte for byte to
// testdata/page.html, a page looked at in a browser: the layout's
// arithmetic (bar positions, arrows, the time axis, the fault shading) has
// no other test. After a change to the drawing, run with -update, open the
// page, and check it still shows what it should.
func TestHTMLIsAsDrawn(t *testing.T) {
	r := check(t, htmlHistory(), StrictSerializable)
	var got bytes.Buffer
	require.NoError(t, r.HTML(&got, []fault.Interval{{Start: ms(8), End: ms(25), Label: "partition"}}))
	golden := filepath.Join("testdata", "page.html")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, got.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	if !bytes.Equal(want, got.Bytes()) {
		path := filepath.Join(t.TempDir(), "page.html")
		require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got.String(), "\n")
		i := 0
		for i < min(len(wl), len(gl)) && wl[i] == gl[i] {
			i++
		}
		t.Errorf("the page (%s) differs from %s from line %d on:\nwant %.300q\ngot  %.300q\n(after a deliberate change: -update, then look at the page)",
			path, golden, i+1, strings.Join(wl[i:min(i+1, len(wl))], ""), strings.Join(gl[i:min(i+1, len(gl))], ""))
	}
}

// htmlHistory is an invalid history with several anomalies to draw.
func htmlHistory() *History {
	return history(
		committed(0, 0, 10, Append(1, 1), Append(2, 2)),
		committed(1, 5, 30, Read(1, 1), Read(2)),
		committed(2, 40, 60, Read(2, 2)),
		committed(0, 20, 50, Read(3), Append(3, 3)),
		committed(1, 40, 50, Read(3), Append(3, 4)),
		timedOut(3, 12, Append(4, 4)),
		committed(2, 70, 80, Read(3, 3, 4)),
		aborted(3, 10, 11, Append(5, 5)),
		committed(4, 70, 80, Read(5, 5)),
	)
}

// TestHTML writes the page for an invalid history with a fault overlaid,
// prints its path, and checks what it shows.
func TestHTML(t *testing.T) {
	r := check(t, htmlHistory(), StrictSerializable)
	require.False(t, r.OK())
	path, err := r.WriteHTML(t.TempDir(), "txncheck/html test", []fault.Interval{{Start: ms(8), End: ms(25), Label: "partition"}})
	require.NoError(t, err)
	t.Logf("visualization: %s", path)
	assert.True(t, strings.HasSuffix(path, "txncheck_html_test.html"))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	page := string(b)
	for _, want := range []string{
		"<svg", "G-single × 2", "<h3>T0 → T1 → T0</h3>", "G1a", "lost-update", "partition",
		"T1 &lt; T0: T1 read key 2 = nil, the version before T0&#39;s append of 2 to key 2",
		`marker-end="url(#arrow-rw)"`,
	} {
		assert.Contains(t, page, want)
	}
	assert.NotContains(t, page, "<script", "no script")
}
