package sweep

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/sim"
)

// TestRecordingChangesNoTrace runs seeds of a key/value and a transaction
// scenario with and without recording: the trace hash is the same, and
// the run file holds the run.
func TestRecordingChangesNoTrace(t *testing.T) {
	for _, name := range []string{"kv-linearizability", "swarm-txn"} {
		sc, err := Lookup(name)
		require.NoError(t, err)
		plain := sc.Run(1, "", nil)
		rc := &testbed.Recording{}
		recorded := sc.Run(1, "", rc)
		assert.Equal(t, plain.Summary, recorded.Summary, "%s: recording changed the run", name)
		f := rc.File
		require.NotNil(t, f, name)
		assert.Equal(t, runfile.SummaryOf(plain.Summary), f.Summary)
		assert.Equal(t, name, f.Scenario)
		kinds := map[sim.Kind]int{}
		for _, e := range f.Events {
			kinds[e.Kind]++
		}
		for _, k := range []sim.Kind{sim.KindTimer, sim.KindSend, sim.KindDeliver, sim.KindReply, sim.KindDone, sim.KindInvoke, sim.KindReturn, sim.KindFault} {
			assert.Positive(t, kinds[k], "%s: no %s event", name, k)
		}
		assert.Equal(t, kinds[sim.KindInvoke], len(f.Ops), "%s: an invoke per op", name)
		assert.NotEmpty(t, f.Faults, name)
		var b bytes.Buffer
		require.NoError(t, runfile.Write(&b, f))
		t.Logf("%s seed 1: %d events, %d states, %d ops, %d faults, %d bytes", name, len(f.Events), len(f.States), len(f.Ops), len(f.Faults), b.Len())
	}
}
