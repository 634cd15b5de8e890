package shardtxn

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRefuseIsFinal checks that a one-shard transaction refused on a
// conflict stays refused when another attempt of it runs later (a client's
// retry still under way), and that a refusal arriving after the
// transaction ran returns its result instead.
func TestRefuseIsFinal(t *testing.T) {
	t.Parallel()
	s := newShard(bugs{})
	id := Txid{Client: 1, Seq: 1}
	no := s.Apply(shardCmd{Refuse: &refuseCmd{ID: id, Reason: "write intent pending"}}).(shardResult)
	assert.Equal(t, shardResult{Vote: voteNo, Reason: "write intent pending"}, no)
	assert.Equal(t, no, s.Apply(shardCmd{Execute: &prepareCmd{ID: id, Ops: []Op{Set("k", "v")}}}), "the later attempt gets the refusal")
	assert.Empty(t, s.data, "and writes nothing")

	id2 := Txid{Client: 1, Seq: 2}
	yes := s.Apply(shardCmd{Execute: &prepareCmd{ID: id2, Ops: []Op{Set("k", "v")}}}).(shardResult)
	assert.Equal(t, voteYes, yes.Vote)
	assert.Equal(t, yes, s.Apply(shardCmd{Refuse: &refuseCmd{ID: id2, Reason: "late"}}), "a late refusal returns the result")
	assert.Equal(t, shardResult{Vote: voteNo, Reason: "decided already"}, s.Apply(shardCmd{Refuse: &refuseCmd{ID: id, Reason: "older"}}))
	assert.Equal(t, map[string]string{"k": "v"}, s.data)
}
