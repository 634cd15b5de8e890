package search

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/shardtxn"
)

func TestTxnPredicatesCatchShardtxnBugsAndPassTheCorrectCode(t *testing.T) {
	sc := scenario(t, "txn-2pc")
	for _, c := range []struct {
		bug, want string
		st        Strategy
	}{
		{"read lock released before the decision", "lock safety", DFS},
		{"background cleanup aborts a transaction the coordinator committed", "atomic decisions", DFS},
		{"cohort drops its locks on a timeout without a decision", "atomic decisions", PCT},
	} {
		o := Options{Strategy: c.st, Seed: 1, Depth: 150, Budget: 50_000, Faults: -1, Drops: -1, Workers: 2, Bug: c.bug}
		res, err := Search(sc, o)
		require.NoError(t, err)
		require.NotNil(t, res.Violation, "%s finds %q", c.st, c.bug)
		assert.Equal(t, c.want, Kind(res.Violation.Err), "%v", res.Violation.Err)
		file, err := RunFile(sc, res.Options, res.Violation)
		require.NoError(t, err)
		f, err := ReplayRunFile(Scenarios(), file)
		require.NoError(t, err)
		assert.Equal(t, res.Violation.Summary, f.Summary, "the run file replays to the same run")
		t.Logf("%s: %d states, %d steps: %v", c.bug, res.States, len(res.Violation.Path), res.Violation.Err)
	}
	res, err := Search(sc, Options{Strategy: DFS, Seed: 1, Depth: 150, Budget: 20_000, Faults: -1, Drops: -1, Workers: 2})
	require.NoError(t, err)
	assert.Nil(t, res.Violation, "the correct code keeps both predicates: %v", res.Violation)
	assert.GreaterOrEqual(t, res.States, 20_000)
}

func TestTxnPredicatesJudgeWhatTheShardsApply(t *testing.T) {
	s := &txnSys{decided: map[shardtxn.Txid]map[int]bool{}}
	for range 2 {
		s.active = append(s.active, map[shardtxn.Txid][]shardtxn.Op{})
	}
	a, b := shardtxn.Txid{Client: 1, Seq: 1}, shardtxn.Txid{Client: 2, Seq: 1}
	s.prepared(0, a, []shardtxn.Op{shardtxn.Get("x")})
	s.prepared(0, b, []shardtxn.Op{shardtxn.Get("x")})
	require.NoError(t, s.err, "two readers share a lock")
	s.decide(0, b, true)
	s.prepared(1, a, []shardtxn.Op{shardtxn.Set("y", "1")})
	s.decide(1, a, true)
	require.NoError(t, s.err)
	s.prepared(0, b, []shardtxn.Op{shardtxn.Set("x", "2")})
	require.ErrorContains(t, s.err, `lock safety: transactions 1.1 and 2.1 hold conflicting locks on "x" at shard 0`)
	s.err = nil
	s.decide(0, a, false)
	require.ErrorContains(t, s.err, "atomic decisions: transaction 1.1 committed at shard 1 and aborted at shard 0")
}

// BenchmarkTxnWalks runs DFS walks of txn-2pc (each walk builds its world
// afresh: three groups' servers, their services and two clerks) until
// 5000 states; it reports states per second.
func BenchmarkTxnWalks(b *testing.B) {
	sc := TxnScenarios()[0]
	states := 0
	for b.Loop() {
		res, err := Search(sc, Options{Strategy: DFS, Seed: 1, Depth: 150, Budget: 5000, Faults: -1, Drops: -1, Workers: 1})
		require.NoError(b, err)
		states += res.States
	}
	b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
}
