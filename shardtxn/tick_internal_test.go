package shardtxn

import (
	"testing"
	"time"

	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
)

// TestTimeoutAge checks at its edge which transactions the coordinator
// leader's tick aborts: each still undecided that is TxnTimeout old or
// older, whether or not this leader is gathering its votes (a drive), and
// then it ignores the votes still to come; not one a nanosecond younger,
// one whose votes are all in (its decision is on its way to the log), nor
// one decided.
func TestTimeoutAge(t *testing.T) {
	t.Parallel()
	w := sim.NewWorld(1)
	h := w.NewHost("coordinator")
	cfg := DefaultConfig()
	c := &CoordServer{sm: newCoordinator(1, PresumedAbort, bugs{}), host: h, cfg: cfg, leading: true, driving: map[Txid]*drive{}}
	c.ticker = h.NewTimer(c.tick)
	var aborted []Txid
	c.decide.submit = func(batch []decision, done func(bool)) {
		for _, d := range batch {
			assert.Equal(t, decision{ID: d.ID, Reason: "transaction timed out"}, d)
			aborted = append(aborted, d.ID)
		}
		c.sm.Apply(coordCmd{Decide: batch}) // as the log would, at once
		done(true)
	}
	undriven, driven, voted, decided, young := Txid{1, 1}, Txid{2, 1}, Txid{3, 1}, Txid{4, 1}, Txid{5, 1}
	for _, id := range []Txid{undriven, driven, voted, decided} {
		c.sm.begin(&beginCmd{ID: id, Ops: []Op{Set("k", "v")}})
	}
	c.sm.begin(&beginCmd{ID: young, At: time.Nanosecond, Ops: []Op{Set("k", "v")}})
	c.sm.decide(decision{ID: decided, Commit: true})
	dr := &drive{t: c.sm.txns[driven]}
	c.driving[driven], c.driving[voted] = dr, &drive{t: c.sm.txns[voted], over: true}

	w.Run(cfg.TxnTimeout - time.Nanosecond)
	c.tick()
	assert.Empty(t, aborted, "none is TxnTimeout old yet")
	w.Run(time.Nanosecond)
	c.tick()
	assert.Equal(t, []Txid{undriven, driven}, aborted)
	assert.True(t, dr.over, "the votes still to come are ignored")
	w.Run(time.Nanosecond)
	c.tick()
	assert.Equal(t, []Txid{undriven, driven, young}, aborted)
}
