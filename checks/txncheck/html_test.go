package txncheck

import (
	"os"
	"strings"
	"testing"

	"github.com/replab/replab/chaos/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTML writes the page for an invalid history with a fault overlaid,
// prints its path, and checks what it shows.
func TestHTML(t *testing.T) {
	h := history(
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
	r := check(t, h, StrictSerializable)
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
		"T1 &lt; T0: T1 read key 2 = [], the version before T0&#39;s append of 2 to key 2",
		`marker-end="url(#arrow-rw)"`,
	} {
		assert.Contains(t, page, want)
	}
	assert.NotContains(t, page, "<script", "no script")
}
