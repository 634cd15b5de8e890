// Package bank is the oracle of Jepsen's bank test: clients transfer money
// between accounts and read every balance at once; a system that isolates
// its transactions never shows a read whose balances do not add up to the
// total, nor (unless allowed) a negative balance.
//
// Clients record their operations into a History in virtual time, as they
// record transactions for package txncheck:
//
//	id := h.Transfer(process, from, to, amount, w.Now())
//	h.Complete(id, txncheck.OK, nil, w.Now())
//	id = h.Read(process, w.Now())
//	h.Complete(id, txncheck.OK, balances, w.Now())
//
// Check looks at every committed read (reads that failed or never completed
// say nothing) and groups the errors by type, each with its count, its
// first instance and its worst.
package bank

import (
	"fmt"
	"time"

	"github.com/replab/replab/checks/txncheck"
)

// A Transfer moves Amount from account From to account To.
type Transfer struct {
	From, To int
	Amount   int64
}

// An Op is a transfer or a read of every balance.
type Op struct {
	Process  int
	Invoke   time.Duration
	Complete time.Duration // OK and Fail only
	Outcome  txncheck.Outcome
	Transfer *Transfer // nil for a read
	Balances []int64   // a committed read's result, one balance per account
}

// String formats the op: "read [10 20 70] ok, process 2, 1ms–2ms".
func (o Op) String() string {
	what := fmt.Sprintf("read %v", o.Balances)
	if o.Transfer != nil {
		what = fmt.Sprintf("transfer %d from %d to %d", o.Transfer.Amount, o.Transfer.From, o.Transfer.To)
	}
	when := fmt.Sprintf("%v–%v", o.Invoke, o.Complete)
	if o.Outcome == txncheck.Unknown {
		when = fmt.Sprintf("%v–?", o.Invoke)
	}
	return fmt.Sprintf("%s %v, process %d, %s", what, o.Outcome, o.Process, when)
}

// A History records a bank test's operations as clients run them. The zero
// value is an empty history.
type History struct {
	ops []Op
}

// Transfer records that process began a transfer at virtual time at, and
// returns its id for Complete.
func (h *History) Transfer(process, from, to int, amount int64, at time.Duration) int {
	h.ops = append(h.ops, Op{Process: process, Invoke: at, Transfer: &Transfer{from, to, amount}})
	return len(h.ops) - 1
}

// Read records that process began a read of every balance at virtual time
// at, and returns its id for Complete.
func (h *History) Read(process int, at time.Duration) int {
	h.ops = append(h.ops, Op{Process: process, Invoke: at})
	return len(h.ops) - 1
}

// Complete records that op id ended with outcome at virtual time at; a
// committed read's balances are its result (nil for a transfer). Completing
// an op twice, or a transfer with balances, is a programming error and
// panics.
func (h *History) Complete(id int, outcome txncheck.Outcome, balances []int64, at time.Duration) {
	if id < 0 || id >= len(h.ops) {
		panic(fmt.Sprintf("bank: Complete: no op %d (history has %d)", id, len(h.ops)))
	}
	o := &h.ops[id]
	switch {
	case o.Outcome != txncheck.Unknown:
		panic(fmt.Sprintf("bank: Complete: op %d already completed (%v)", id, o.Outcome))
	case o.Transfer != nil && balances != nil:
		panic(fmt.Sprintf("bank: Complete: op %d is a transfer, completed with balances %v", id, balances))
	case outcome == txncheck.Unknown:
		return
	}
	o.Outcome, o.Complete, o.Balances = outcome, at, balances
}

// Add records a whole op at once (for histories built by hand) and returns
// its id.
func (h *History) Add(o Op) int {
	h.ops = append(h.ops, o)
	return len(h.ops) - 1
}

// Len returns the number of ops recorded.
func (h *History) Len() int { return len(h.ops) }

// Ops returns the ops, by id. An op never completed is Unknown.
func (h *History) Ops() []Op { return h.ops }
