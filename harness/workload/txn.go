package workload

import (
	"fmt"
	"time"

	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/sim"
)

// A TxnClient is a transactional service's client, as the transaction
// workloads drive it. Any service (two-phase commit, log ordering) can be
// run by them behind a small adapter.
type TxnClient interface {
	// ListTxn runs ops (appends to and reads of integer keys' lists) as
	// one transaction and calls done with its outcome: OK with the reads'
	// results filled in, or Fail if it is known to have aborted.
	ListTxn(ops []txncheck.Op, done func(outcome txncheck.Outcome, ops []txncheck.Op))
	// Transfer moves amount from account from to account to in one
	// transaction: OK, or Fail if it aborted (too little money included).
	Transfer(from, to int, amount int64, done func(outcome txncheck.Outcome))
	// Balances reads accounts 0..accounts-1 in one transaction.
	Balances(accounts int, done func(outcome txncheck.Outcome, balances []int64))
}

// ListSpec describes the list-append workload: transactions of appends and
// reads over keys 0..Keys-1, each append's value unique to its key.
type ListSpec struct {
	Keys   int
	MaxOps int     // each transaction has 1..MaxOps micro-ops
	Reads  float64 // the chance that a micro-op is a read
	Think  time.Duration
}

// StartLists starts one process per client running spec's transactions,
// recording each into h with the world's times.
func StartLists(w *sim.World, clients []TxnClient, spec ListSpec, h *txncheck.History) *Run {
	mustPositive("ListSpec.Keys", spec.Keys)
	mustPositive("ListSpec.MaxOps", spec.MaxOps)
	if !(spec.Reads >= 0 && spec.Reads <= 1) {
		panic(fmt.Sprintf("workload: ListSpec.Reads %v is not a probability in [0, 1]", spec.Reads))
	}
	next := make([]int, spec.Keys) // the last value appended to each key
	return startProcesses(w, clients, spec.Think, func(i int, ck TxnClient, done func()) {
		rng := w.Rand()
		ops := make([]txncheck.Op, 1+rng.IntN(spec.MaxOps))
		for j := range ops {
			k := rng.IntN(spec.Keys)
			if rng.Float64() < spec.Reads {
				ops[j] = txncheck.Read(k)
			} else {
				next[k]++
				ops[j] = txncheck.Append(k, next[k])
			}
		}
		id := h.Invoke(i, ops, w.Now())
		ck.ListTxn(ops, func(outcome txncheck.Outcome, done_ []txncheck.Op) {
			h.Complete(id, outcome, done_, w.Now())
			done()
		})
	})
}

// BankSpec describes the bank workload: transfers between Accounts
// accounts, and reads of every balance.
type BankSpec struct {
	Accounts  int
	MaxAmount int64   // each transfer moves 1..MaxAmount
	Reads     float64 // the chance that an operation is a read of every balance
	Think     time.Duration
}

// StartBank starts one process per client running spec's operations,
// recording each into h.
func StartBank(w *sim.World, clients []TxnClient, spec BankSpec, h *bank.History) *Run {
	mustPositive("BankSpec.Accounts", spec.Accounts)
	mustPositive("BankSpec.MaxAmount", int(min(spec.MaxAmount, 1<<30)))
	if !(spec.Reads >= 0 && spec.Reads <= 1) {
		panic(fmt.Sprintf("workload: BankSpec.Reads %v is not a probability in [0, 1]", spec.Reads))
	}
	return startProcesses(w, clients, spec.Think, func(i int, ck TxnClient, done func()) {
		rng := w.Rand()
		if spec.Accounts == 1 || rng.Float64() < spec.Reads {
			id := h.Read(i, w.Now())
			ck.Balances(spec.Accounts, func(outcome txncheck.Outcome, balances []int64) {
				h.Complete(id, outcome, balances, w.Now())
				done()
			})
			return
		}
		from := rng.IntN(spec.Accounts)
		to := (from + 1 + rng.IntN(spec.Accounts-1)) % spec.Accounts
		amount := 1 + rng.Int64N(spec.MaxAmount)
		id := h.Transfer(i, from, to, amount, w.Now())
		ck.Transfer(from, to, amount, func(outcome txncheck.Outcome) {
			h.Complete(id, outcome, nil, w.Now())
			done()
		})
	})
}

// startProcesses runs one process per client: each does one operation
// (op, which calls done when it completes), pauses up to think, and goes
// again until the run is stopped.
func startProcesses[C any](w *sim.World, clients []C, think time.Duration, op func(i int, ck C, done func())) *Run {
	if think < 0 {
		panic(fmt.Sprintf("workload: think time %v is negative", think))
	}
	r := &Run{running: len(clients)}
	for i, ck := range clients {
		var step func()
		step = func() {
			if r.stopped {
				r.finished++
				return
			}
			op(i, ck, func() { w.After(w.RandDuration(0, think), step) })
		}
		step()
	}
	return r
}
