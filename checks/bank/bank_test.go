package bank

import (
	"testing"
	"time"

	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// read returns a committed read of balances by process p at ms(at).
func read(p, at int, balances ...int64) Op {
	return Op{Process: p, Invoke: ms(at), Complete: ms(at + 1), Outcome: txncheck.OK, Balances: balances}
}

func TestCheck(t *testing.T) {
	cfg := Config{Accounts: 3, Total: 30}
	var h History
	h.Add(Op{Process: 0, Invoke: ms(0), Complete: ms(1), Outcome: txncheck.OK, Transfer: &Transfer{0, 1, 5}})
	h.Add(read(1, 2, 5, 15, 10))
	r, err := Check(&h, cfg)
	require.NoError(t, err)
	assert.True(t, r.Valid)
	assert.Equal(t, "valid: 1 committed reads, all consistent\n", r.String())

	h.Add(read(1, 3, 5, 15, 9))                                                                               // off by -1
	h.Add(read(2, 4, 5, 15, 2))                                                                               // off by -8: the worst
	h.Add(read(2, 5, -3, 15, 12))                                                                             // a negative balance, right total
	h.Add(read(3, 6, 10, 20))                                                                                 // two accounts: wrong accounts and total
	h.Add(Op{Process: 4, Invoke: ms(7), Outcome: txncheck.Unknown})                                           // says nothing
	h.Add(Op{Process: 4, Invoke: ms(8), Complete: ms(9), Outcome: txncheck.Fail, Balances: []int64{0, 0, 0}}) // nor this
	r, err = Check(&h, cfg)
	require.NoError(t, err)
	t.Log(r)
	assert.False(t, r.Valid)
	assert.Equal(t, 5, r.Reads)
	assert.Equal(t, 4, r.Wrong)
	require.Len(t, r.Errors, 3)
	total, negative, accounts := r.Errors[0], r.Errors[1], r.Errors[2]
	assert.Equal(t, WrongTotal, total.Type)
	assert.Equal(t, 3, total.Count)
	assert.Equal(t, Error{2, -1, "op 2: read [5 15 9] ok, process 1, 3ms–4ms: total 29, expected 30 (off by -1)"}, total.First)
	assert.Equal(t, 3, total.Worst.Op)
	assert.Equal(t, int64(-8), total.Worst.By)
	assert.Equal(t, Negative, negative.Type)
	assert.Equal(t, Error{4, -3, "op 4: read [-3 15 12] ok, process 2, 5ms–6ms: a balance of -3"}, negative.First)
	assert.Equal(t, WrongAccounts, accounts.Type)
	assert.Equal(t, 5, accounts.First.Op)
	assert.Contains(t, r.String(), "wrong-total × 3\n  first: op 2")

	cfg.AllowNegative = true
	r, err = Check(&h, cfg)
	require.NoError(t, err)
	assert.Len(t, r.Errors, 2, "negative balances allowed")
}

func TestBadInput(t *testing.T) {
	_, err := Check(&History{}, Config{})
	assert.EqualError(t, err, "bank: 0 accounts: need at least one")
	var h History
	h.Transfer(0, 0, 3, 5, 0)
	_, err = Check(&h, Config{Accounts: 3})
	assert.EqualError(t, err, "bank: op 0: transfer from 0 to 3: accounts are 0 to 2")
	h = History{}
	h.Transfer(0, 0, 1, 0, 0)
	_, err = Check(&h, Config{Accounts: 3})
	assert.EqualError(t, err, "bank: op 0: transfer of 0: amounts must be positive")

	id := h.Read(1, ms(1))
	h.Complete(id, txncheck.OK, []int64{1, 2, 3}, ms(2))
	assert.Equal(t, "read [1 2 3] ok, process 1, 1ms–2ms", h.Ops()[id].String())
	assert.PanicsWithValue(t, "bank: Complete: op 1 already completed (ok)", func() { h.Complete(id, txncheck.OK, nil, ms(3)) })
	assert.PanicsWithValue(t, "bank: Complete: op 0 is a transfer, completed with balances [1]", func() { h.Complete(0, txncheck.OK, []int64{1}, ms(3)) })
	assert.PanicsWithValue(t, "bank: Complete: no op 7 (history has 2)", func() { h.Complete(7, txncheck.OK, nil, ms(3)) })
}

// A toyBank is a bank inside a world. A correct one applies a transfer at
// once and refuses to overdraw; the planted bugs credit the destination a
// little after debiting the source (a read in between sees money missing),
// or let an account go below zero.
type toyBank struct {
	balances   []int64
	creditLag  time.Duration
	overdrafts bool
}

func (b *toyBank) transfer(w *sim.World, t Transfer) bool {
	if !b.overdrafts && b.balances[t.From] < t.Amount {
		return false
	}
	b.balances[t.From] -= t.Amount
	if b.creditLag == 0 {
		b.balances[t.To] += t.Amount
	} else {
		w.After(b.creditLag, func() { b.balances[t.To] += t.Amount })
	}
	return true
}

// runBank runs five clients against the bank for a virtual second: each
// reads or transfers, the requests and replies taking up to 2 ms.
func runBank(seed int64, b *toyBank) *History {
	w := sim.NewWorld(seed)
	h := &History{}
	for p := range 5 {
		var step func()
		step = func() {
			delay := func() time.Duration { return w.RandDuration(0, 2*time.Millisecond) }
			if w.Rand().IntN(2) == 0 {
				id := h.Read(p, w.Now())
				w.After(delay(), func() {
					balances := append([]int64(nil), b.balances...)
					w.After(delay(), func() { h.Complete(id, txncheck.OK, balances, w.Now()); step() })
				})
				return
			}
			t := Transfer{w.Rand().IntN(len(b.balances)), w.Rand().IntN(len(b.balances)), 1 + w.Rand().Int64N(20)}
			id := h.Transfer(p, t.From, t.To, t.Amount, w.Now())
			w.After(delay(), func() {
				outcome := txncheck.Fail
				if b.transfer(w, t) {
					outcome = txncheck.OK
				}
				w.After(delay(), func() { h.Complete(id, outcome, nil, w.Now()); step() })
			})
		}
		step()
	}
	w.Run(time.Second)
	return h
}

// TestRecordedInAWorld checks bank histories recorded inside a world: a
// correct bank passes and each planted bug is caught as its error type.
func TestRecordedInAWorld(t *testing.T) {
	cfg := Config{Accounts: 4, Total: 100}
	newBank := func() *toyBank { return &toyBank{balances: []int64{25, 25, 25, 25}} }
	for _, c := range []struct {
		name string
		bug  func(*toyBank)
		want []ErrorType
	}{
		{"correct", func(*toyBank) {}, nil},
		{"credit lags the debit", func(b *toyBank) { b.creditLag = time.Millisecond }, []ErrorType{WrongTotal}},
		{"overdrafts", func(b *toyBank) { b.overdrafts = true }, []ErrorType{Negative}},
	} {
		b := newBank()
		c.bug(b)
		h := runBank(1, b)
		r, err := Check(h, cfg)
		require.NoError(t, err)
		t.Logf("%s: %d ops; %v", c.name, h.Len(), r)
		var got []ErrorType
		for _, g := range r.Errors {
			got = append(got, g.Type)
		}
		assert.Equal(t, c.want, got, c.name)
		assert.Equal(t, c.want == nil, r.Valid, c.name)
		assert.Greater(t, r.Reads, 300, c.name)
	}
}
