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

var update = flag.Bool("update", false, "rewrite the pages in testdata that the HTML tests pin")

// TestHTMLIsAsDrawn pins the page of TestHTML's history byte for byte to
// testdata/page.html, a page looked at in a browser: the layout's
// arithmetic (bar positions, arrows, the time axis, the fault shading) has
// no other test. After a change to the drawing, run with -update, open the
// page, and check it still shows what it should.
func TestHTMLIsAsDrawn(t *testing.T) {
	r := check(t, htmlHistory(), StrictSerializable)
	pinPage(t, r, []fault.Interval{{Start: ms(8), End: ms(25), Label: "partition"}}, "page.html")
}

// TestHTMLOfManyAtOneInstant pins the page of four readers of one aborted
// append, all at one instant, with no faults, to testdata/instant.html:
// the fourth anomaly of a type is listed, not drawn; a time axis of no
// width gets one; no fault list is printed.
func TestHTMLOfManyAtOneInstant(t *testing.T) {
	h := history(aborted(0, 0, 0, Append(1, 1)))
	for p := 1; p <= 4; p++ {
		h.Add(committed(p, 0, 0, Read(1, 1)))
	}
	r := check(t, h, ReadCommitted)
	require.Len(t, r.Anomalies, 4)
	page := pinPage(t, r, nil, "instant.html")
	assert.Contains(t, page, "<summary>1 more</summary>")
	assert.NotContains(t, page, "NaN")
	assert.NotContains(t, page, "Faults")

	valid := check(t, history(committed(0, 0, 1, Append(1, 1))), ReadCommitted)
	var b bytes.Buffer
	require.NoError(t, valid.HTML(&b, nil))
	assert.NotContains(t, b.String(), `<p></p>`, "no empty list of anomalies")
}

// TestHTMLDrawsTheLongestCycleItMay draws a cycle of maxRows transactions
// and lists one longer.
func TestHTMLDrawsTheLongestCycleItMay(t *testing.T) {
	for _, n := range []int{maxRows, maxRows + 1} {
		// T_k appends 1 to key k and 2 to key k+1; a reader sees each key
		// as [1 2]: T_k → T_{k-1}, a G0 cycle through all n.
		h := &History{}
		var reads []Op
		for k := range n {
			h.Add(committed(k, 0, 10, Append(k, 1), Append((k+1)%n, 2)))
			reads = append(reads, Read(k, 1, 2))
		}
		h.Add(committed(n, 20, 30, reads...))
		r := check(t, h, Serializable)
		require.Equal(t, []AnomalyType{G0}, types(r), "%v", r)
		require.Len(t, r.Anomalies[0].Txns, n)
		var b bytes.Buffer
		require.NoError(t, r.HTML(&b, nil))
		tooMany := strings.Contains(b.String(), "too many to draw")
		assert.Equal(t, n > maxRows, tooMany, "a cycle of %d transactions", n)
	}
}

// pinPage checks r's page byte for byte against testdata/name (rewritten
// with -update), reporting the first line that differs, and returns it.
func pinPage(t *testing.T, r *Result, faults []fault.Interval, name string) string {
	t.Helper()
	var got bytes.Buffer
	require.NoError(t, r.HTML(&got, faults))
	golden := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, got.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	if !bytes.Equal(want, got.Bytes()) {
		path := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got.String(), "\n")
		i := 0
		for i < min(len(wl), len(gl)) && wl[i] == gl[i] {
			i++
		}
		t.Errorf("the page (%s) differs from %s from line %d on:\nwant %.300q\ngot  %.300q\n(after a deliberate change: -update, then look at the page)",
			path, golden, i+1, strings.Join(wl[i:min(i+1, len(wl))], ""), strings.Join(gl[i:min(i+1, len(gl))], ""))
	}
	return got.String()
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
