package shardtxn

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prepareOn applies a prepare of ops for id to s and returns its result.
func prepareOn(s *shard, id Txid, ops ...Op) shardResult {
	return s.Apply(shardCmd{Prepare: &prepareCmd{ID: id, Ops: ops}}).(shardResult)
}

// decideOn applies a decision on id to s.
func decideOn(s *shard, id Txid, commit bool) {
	s.Apply(shardCmd{Decide: &decideCmd{ID: id, Commit: commit}})
}

// holders describes s's lock table: for each locked key, its writer
// (0.0: none) and its readers.
func holders(s *shard) map[string]string {
	out := map[string]string{}
	for k, l := range s.locks {
		out[k] = fmt.Sprintf("writer %v, readers %v", l.Writer, l.Readers)
	}
	return out
}

// TestLockModes checks the lock table a prepare leaves: a key read is
// held shared, a key written exclusive, and a key read then written in one
// transaction is held once, exclusive (the shared hold is upgraded, not
// kept beside the exclusive one); written then read, it stays exclusive.
// The decision frees every one of them.
func TestLockModes(t *testing.T) {
	t.Parallel()
	s := newShard(bugs{})
	id := Txid{Client: 1, Seq: 1}
	res := prepareOn(s, id, Get("r"), Set("w", "1"), Get("u"), Set("u", "2"), Set("v", "3"), Get("v"))
	require.Equal(t, voteYes, res.Vote)
	assert.Equal(t, map[string]string{
		"r": "writer 0.0, readers [1.1]",
		"w": "writer 1.1, readers []",
		"u": "writer 1.1, readers []",
		"v": "writer 1.1, readers []",
	}, holders(s))
	assert.Equal(t, []string{"r", "w", "u", "v"}, s.prepared[id].Keys, "each key recorded once")
	assert.Equal(t, Result{Value: "3", Found: true}, res.Results[5], "a read sees the transaction's own write")

	other := Txid{Client: 2, Seq: 1}
	conflict := prepareOn(s, other, Get("u"))
	assert.Equal(t, shardResult{Vote: voteConflict, Conflict: "u", Holder: id}, conflict, "an upgraded key is not readable by others")
	assert.Equal(t, voteYes, prepareOn(s, other, Get("r")).Vote, "a shared key is")

	decideOn(s, id, true)
	decideOn(s, other, false)
	assert.Empty(t, s.locks)
	assert.Empty(t, s.prepared)
	assert.Equal(t, map[string]string{"w": "1", "u": "2", "v": "3"}, s.data)
}

// TestReleaseWakes checks that the shard tells its server (released)
// which keys' locks it released: those of a decided transaction, and
// those of a prepare whose condition failed; so the server can retry the
// prepares waiting for them.
func TestReleaseWakes(t *testing.T) {
	t.Parallel()
	s := newShard(bugs{})
	var heard []string
	s.released = func(keys []string) { heard = append(heard, keys...) }
	id := Txid{Client: 1, Seq: 1}
	require.Equal(t, voteYes, prepareOn(s, id, Set("a", "1"), Get("b")).Vote)
	assert.Empty(t, heard, "a prepare takes locks and releases none")
	decideOn(s, id, false)
	assert.Equal(t, []string{"a", "b"}, heard)

	heard = nil
	no := prepareOn(s, Txid{Client: 1, Seq: 2}, Get("c"), CSet("d", "1", "0"))
	assert.Equal(t, shardResult{Vote: voteNo, Reason: `condition failed: cset d "1" if "0"`}, no)
	assert.Equal(t, []string{"c", "d"}, heard, "a failed condition releases the locks it took")
	assert.Empty(t, s.locks)
}

// TestLatePrepareRefused checks that a shard refuses the prepare of a
// transaction it has seen decided, or of an older transaction of the same
// client (a prepare delayed past its decision, or a coordinator's retry
// after it), so that it takes no locks that no decision would release; a
// decision arriving late for an older transaction does not undo this.
func TestLatePrepareRefused(t *testing.T) {
	t.Parallel()
	s := newShard(bugs{})
	id := Txid{Client: 1, Seq: 2}
	decideOn(s, id, false) // the abort overtakes the prepare
	decided := shardResult{Vote: voteNo, Reason: "decided already"}
	assert.Equal(t, decided, prepareOn(s, id, Set("a", "1")))
	assert.Equal(t, decided, prepareOn(s, Txid{Client: 1, Seq: 1}, Set("a", "1")))
	decideOn(s, Txid{Client: 1, Seq: 1}, false)
	assert.Equal(t, decided, prepareOn(s, id, Set("a", "1")), "a late decision of an older transaction")
	assert.Empty(t, s.locks)
	assert.Equal(t, voteYes, prepareOn(s, Txid{Client: 1, Seq: 3}, Set("a", "1")).Vote, "the client's next transaction")
	assert.Equal(t, voteYes, prepareOn(s, Txid{Client: 2, Seq: 1}, Set("b", "1")).Vote, "another client's")
}

// TestOwnWritesInView checks that an op sees the writes of the ops before
// it in its transaction, deletes included, before anything is installed.
func TestOwnWritesInView(t *testing.T) {
	t.Parallel()
	s := newShard(bugs{})
	s.data["k"] = "old"
	id := Txid{Client: 1, Seq: 1}
	res := prepareOn(s, id, Del("k"), Get("k"), CSetAbsent("k", "new"), Read("k"), Append("k", "x"), Read("k"))
	require.Equal(t, voteYes, res.Vote)
	assert.Equal(t, []Result{{}, {}, {Value: "ok"}, {Found: true, List: []string{"new"}}, {}, {Found: true, List: []string{"new", "x"}}}, res.Results)
	assert.Equal(t, map[string]string{"k": "old"}, s.data, "nothing installed before the decision")
	decideOn(s, id, true)
	assert.Equal(t, map[string]string{"k": "new x"}, s.data)
}

// TestPlantedEarlyReadUnlock checks what the planted bug "read lock
// released before the decision" does: a prepare keeps its write locks and
// releases its read locks at once.
func TestPlantedEarlyReadUnlock(t *testing.T) {
	t.Parallel()
	s := newShard(bugs{earlyReadUnlock: true})
	var heard []string
	s.released = func(keys []string) { heard = append(heard, keys...) }
	id := Txid{Client: 1, Seq: 1}
	require.Equal(t, voteYes, prepareOn(s, id, Get("r"), Set("w", "1")).Vote)
	assert.Equal(t, map[string]string{"w": "writer 1.1, readers []"}, holders(s))
	assert.Equal(t, []string{"w"}, s.prepared[id].Keys)
	assert.Equal(t, []string{"r"}, heard)
}

// TestKnownAnswers checks which commands a shard's state answers without
// a log entry (shard.known), and that each answer is what applying the
// command would return: a prepare of a transaction prepared here, or
// decided here or older than its client's newest decided here; a
// decision applied, or whose transaction can no longer prepare here; a
// one-shard transaction that ended. Not a prepare or decision of a
// transaction the shard knows nothing of, a decision of one prepared
// here, nor a one-phase read.
func TestKnownAnswers(t *testing.T) {
	t.Parallel()
	s := newShard(bugs{})
	prepared, decided, fresh := Txid{Client: 1, Seq: 5}, Txid{Client: 2, Seq: 5}, Txid{Client: 3, Seq: 1}
	require.Equal(t, voteYes, prepareOn(s, prepared, Get("a"), Set("b", "1")).Vote)
	decideOn(s, decided, true)
	s.Apply(shardCmd{Execute: &prepareCmd{ID: Txid{Client: 4, Seq: 2}, Ops: []Op{Set("c", "1")}}})
	prepare := func(id Txid) shardCmd { return shardCmd{Prepare: &prepareCmd{ID: id, Ops: []Op{Set("z", "1")}}} }
	decide := func(id Txid) shardCmd { return shardCmd{Decide: &decideCmd{ID: id, Commit: true}} }
	execute := func(id Txid) shardCmd { return shardCmd{Execute: &prepareCmd{ID: id, Ops: []Op{Set("c", "2")}}} }
	for _, c := range []struct {
		name  string
		cmd   shardCmd
		known bool
	}{
		{"a prepare of a prepared transaction", prepare(prepared), true},
		{"a prepare of a decided one", prepare(decided), true},
		{"a prepare of an older one of the client", prepare(Txid{Client: 2, Seq: 4}), true},
		{"a prepare of the client's next", prepare(Txid{Client: 2, Seq: 6}), false},
		{"a prepare of a fresh one", prepare(fresh), false},
		{"a one-phase read of a decided one", shardCmd{Prepare: &prepareCmd{ID: decided, Ops: []Op{Get("a")}, OnePhase: true}}, false},
		{"a decision applied", decide(decided), true},
		{"a decision of an older one, never prepared", decide(Txid{Client: 2, Seq: 1}), true},
		{"a decision of a prepared one", decide(prepared), false},
		{"a decision of a fresh one", decide(fresh), false},
		{"a one-shard transaction that ran", execute(Txid{Client: 4, Seq: 2}), true},
		{"one of its client's older", execute(Txid{Client: 4, Seq: 1}), true},
		{"its client's next", execute(Txid{Client: 4, Seq: 3}), false},
	} {
		res, known := s.known(c.cmd)
		require.Equal(t, c.known, known, c.name)
		if known {
			before := s.Snapshot()
			assert.Equal(t, res, s.Apply(c.cmd), "%s: as applying it would answer", c.name)
			assert.Equal(t, before, s.Snapshot(), "%s: which changes nothing", c.name)
		}
	}
}
