package experiments

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/plots"
	"github.com/replab/replab/shardtxn"
)

// latencyOf runs txn-latency's kind named name on panel for a tenth of a
// second of clients clients, and summarizes its latencies (ms).
func latencyOf(t *testing.T, panel, name string, clients int) plots.Stats {
	kinds := txnKinds()
	i := slices.IndexFunc(kinds, func(k txnKind) bool { return k.panel[:3] == panel && k.name == name })
	require.GreaterOrEqual(t, i, 0, "%s %s", panel, name)
	cfg := shardtxn.DefaultConfig()
	if kinds[i].conf != nil {
		kinds[i].conf(&cfg)
	}
	e, err := newTxnEnv(1, 2, true, cfg)
	require.NoError(t, err)
	l := e.start(clients, kinds[i].op(e))
	e.w.Run(time.Second / 10)
	l.stopped = true
	return plots.Summarize(millis(l.took))
}

// TestPaperGetSkipsTheLog checks what txn-latency's panel (a) shows: the
// paper's Get, from the leader's state, takes one round trip, well under
// a Set's Raft round; ours, through the log, costs what a Set does.
func TestPaperGetSkipsTheLog(t *testing.T) {
	t.Parallel()
	local, logged, set := latencyOf(t, "(a)", getLocal, 1), latencyOf(t, "(a)", getLogged, 1), latencyOf(t, "(a)", "Set", 1)
	assert.Less(t, local.Mean, set.Mean/2, "a Get from the leader's state skips the Raft round")
	assert.InDelta(t, set.Mean, logged.Mean, 0.05*set.Mean, "a Get through the log costs a Set's round")
	assert.Greater(t, local.N, 2*set.N, "so one client does more than twice as many")
}
