package shardtxn_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSingleKeyLinearizable runs Get, Set and Del on three keys from four
// clients under a random nemesis on an unreliable network, and checks the
// history with porcupine, key by key. A Del is a Set of "" (a missing key
// reads ""); an aborted operation is known not to have taken effect.
func TestSingleKeyLinearizable(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, standard(shardtxn.DefaultConfig()))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Unreliable, On: true}))
	var h linearize.History
	stopped, running := false, 0
	for c := range 4 {
		ck := txntest.Clerk(d.c, fmt.Sprintf("client%d", c))
		running++
		n := 0
		var step func()
		step = func() {
			if stopped {
				running--
				return
			}
			n++
			rng := d.w.Rand()
			key := fmt.Sprintf("k%d", rng.IntN(3))
			var op shardtxn.Op
			var in linearize.KVInput
			switch rng.IntN(3) {
			case 0:
				op, in = shardtxn.Get(key), linearize.KVInput{Kind: linearize.Get, Key: key}
			case 1:
				v := fmt.Sprintf("%d.%d", c, n)
				op, in = shardtxn.Set(key, v), linearize.KVInput{Kind: linearize.Put, Key: key, Value: v}
			default:
				op, in = shardtxn.Del(key), linearize.KVInput{Kind: linearize.Put, Key: key}
			}
			id := h.Call(c, in, d.w.Now())
			require.NoError(t, ck.Txn([]shardtxn.Op{op}, func(o shardtxn.Outcome) {
				out := linearize.KVOutput{Failed: !o.Committed}
				if o.Committed && op.Kind == shardtxn.OpGet {
					out.Value = o.Results[0].Value
				}
				h.Return(id, out, d.w.Now())
				d.w.After(d.w.RandDuration(0, 10*time.Millisecond), step)
			}))
		}
		step()
	}
	n, err := d.c.Monkey().StartNemesis(chaos.NemesisConfig{Interval: 400 * time.Millisecond, Weights: chaos.DefaultWeights()})
	require.NoError(t, err)
	d.w.Run(10 * time.Second)
	n.Stop()
	require.NoError(t, d.c.Recover())
	stopped = true
	require.True(t, d.w.RunUntil(func() bool { return running == 0 }, 30*time.Second), "every operation ends")
	r, err := linearize.Check(linearize.KVModel(), h.Operations(), d.c.Log(), time.Minute, t.TempDir(), "shardtxn-single-key")
	require.NoError(t, err)
	assert.True(t, r.OK(), "%s (%s)", r.Problem(), r.HTML)
	assert.Greater(t, h.Len(), 100)
}
