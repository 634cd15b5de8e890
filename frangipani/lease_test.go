package frangipani_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isolatedReader has a reader take key k's lock shared and then lose
// touch with every lock server while it goes on reading k from its cache,
// every few milliseconds, and then a writer ask for k exclusive and write it
// over and over once it gets it. Clocks drift by drift, the worst way:
// the reader's runs slow and the lock servers' fast. After 3 s the reader
// is let back; the history is checked. A reader that serves past its
// lease reads values the writer has overwritten.
func isolatedReader(t simtest.T, seed int64, cfg frangipani.Config, drift float64) linearize.Result {
	t.Helper()
	d := deploy(t, seed, cfg)
	w, c := d.w, d.c
	var h linearize.History
	var hosts []*sim.Host
	var kv []*linearize.RecordedKV
	for i, name := range []string{"reader", "writer"} {
		ck, hc := d.clerk(t, name)
		hosts = append(hosts, hc)
		kv = append(kv, linearize.Record(frangipanitest.CachingKV{Clerk: ck}, &h, i, w.Now))
	}
	for i := range c.Hosts() {
		require.NoError(t, c.Apply(fault.Fault{Kind: fault.Drift, Host: i, Rate: 1 + drift}))
	}
	require.NoError(t, hosts[0].SetClockRate(1-drift))
	w.Run(time.Second) // a leader is elected
	got := false
	kv[0].Get("k", func(string, int64) { got = true })
	require.True(t, w.RunUntil(func() bool { return got }, 5*time.Second), "the reader gets k")
	c.Connect(hosts[0], 0, nil)
	stop, running := w.Now()+3*time.Second, 2
	loop := func(op func(n int, next func())) {
		n := 0
		var next func()
		next = func() {
			n++
			if w.Now() >= stop {
				running--
				return
			}
			w.After(w.RandDuration(time.Millisecond, 5*time.Millisecond), func() { op(n, next) })
		}
		next()
	}
	loop(func(_ int, next func()) { kv[0].Get("k", func(string, int64) { next() }) })
	w.After(2*cfg.RenewEvery, func() { // the reader's last renewal has been answered
		loop(func(n int, next func()) { kv[1].Put("k", fmt.Sprint(n), next) })
	})
	w.After(3*time.Second, func() { c.Connect(hosts[0], 0, c.All(0)) })
	require.True(t, w.RunUntil(func() bool { return running == 0 }, 30*time.Second), "both clients finish")
	r, err := linearize.Check(linearize.KVModel(), h.Operations(), c.Log(), time.Minute, "", "")
	require.NoError(t, err)
	return r
}

// isolatedReaderCase is isolatedReader within the drift bound, as a case
// of the bug hunt: it fails if the history is not linearizable.
func isolatedReaderCase(t simtest.T, seed int64, cfg frangipani.Config) {
	if r := isolatedReader(t, seed, cfg, cfg.Drift); !r.OK() {
		t.Fatalf("isolated reader, drift %v: %s", cfg.Drift, r.Problem())
	}
}

// TestRenewalNamesLocksTakenSinceItWasSent has a clerk whose renewal of
// one lock gets no timely answer (the replies to every renewal that does
// not name k0, and to every watch, held back 6 s, past BreakAfter) take
// k0 exclusive and write it while another clerk waits for it. Its next
// try must name k0, so that the lock service hears from the holder, does
// not break the lock, and revokes it: the write reaches the other clerk
// and nothing is lost.
func TestRenewalNamesLocksTakenSinceItWasSent(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := deploy(t, 1, cfg)
	a, _ := d.clerk(t, "a")
	b, _ := d.clerk(t, "b")
	d.get(t, a, "k12") // a holds k12, and renews it
	const rule = "replies to renewals without k0, and to watches, held back"
	require.NoError(t, d.c.Monkey().DefineDelayRule(rule, func(m labrpc.Message) time.Duration {
		if r, ok := m.Args.(*frangipani.RenewArgs); ok && m.IsReply && !slices.ContainsFunc(r.Locks, func(h frangipani.Held) bool { return h.Key == "k0" }) {
			return 6 * time.Second
		}
		if _, ok := m.Args.(*frangipani.WatchArgs); ok && m.IsReply {
			return 6 * time.Second
		}
		return 0
	}))
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.DelayRule, Name: rule}))
	d.w.Run(cfg.RenewEvery) // a renewal of k12 alone is out
	d.put(t, a, "k0", "a's")
	v, _ := d.get(t, b, "k0")
	assert.Equal(t, "a's", v, "b reads a's write")
	assert.Zero(t, a.Lost())
}
