package workload

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
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
	// Transfer makes every move in one transaction: OK, or Fail if it
	// aborted (too little money in an account included).
	Transfer(moves []bank.Transfer, done func(outcome txncheck.Outcome))
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
		rng := ClientRand(w, i)
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
	// Moves is how many moves a transfer makes in one transaction, between
	// 2·Moves distinct accounts (paper 004's banking app: 5 over 10); 0
	// is 1.
	Moves int
	// Done, if set, hears of each operation's end: a read of every
	// balance or a transfer, its outcome, and when it began and ended.
	Done func(process int, read bool, outcome txncheck.Outcome, start, end time.Duration)
}

// StartBank starts one process per client running spec's operations,
// recording each into h.
func StartBank(w *sim.World, clients []TxnClient, spec BankSpec, h *bank.History) *Run {
	mustPositive("BankSpec.Accounts", spec.Accounts)
	mustPositive("BankSpec.MaxAmount", int(min(spec.MaxAmount, 1<<30)))
	if !(spec.Reads >= 0 && spec.Reads <= 1) {
		panic(fmt.Sprintf("workload: BankSpec.Reads %v is not a probability in [0, 1]", spec.Reads))
	}
	moves := max(spec.Moves, 1)
	if spec.Moves < 0 || spec.Accounts > 1 && 2*moves > spec.Accounts {
		panic(fmt.Sprintf("workload: BankSpec.Moves %d needs %d distinct accounts; there are %d", spec.Moves, 2*moves, spec.Accounts))
	}
	return startProcesses(w, clients, spec.Think, func(i int, ck TxnClient, done func()) {
		rng := ClientRand(w, i)
		start := w.Now()
		end := func(read bool, outcome txncheck.Outcome) {
			if spec.Done != nil {
				spec.Done(i, read, outcome, start, w.Now())
			}
			done()
		}
		if spec.Accounts == 1 || rng.Float64() < spec.Reads {
			id := h.Read(i, start)
			ck.Balances(spec.Accounts, func(outcome txncheck.Outcome, balances []int64) {
				h.Complete(id, outcome, balances, w.Now())
				end(true, outcome)
			})
			return
		}
		ms := pickMoves(rng, spec.Accounts, moves, spec.MaxAmount)
		ids := make([]int, len(ms))
		for j, m := range ms {
			ids[j] = h.Transfer(i, m.From, m.To, m.Amount, start)
		}
		ck.Transfer(ms, func(outcome txncheck.Outcome) {
			for _, id := range ids {
				h.Complete(id, outcome, nil, w.Now())
			}
			end(false, outcome)
		})
	})
}

// pickMoves picks n moves of 1..maxAmount between 2n distinct accounts of
// accounts (one move: any two).
func pickMoves(rng *rand.Rand, accounts, n int, maxAmount int64) []bank.Transfer {
	if n == 1 {
		from := rng.IntN(accounts)
		to := (from + 1 + rng.IntN(accounts-1)) % accounts
		return []bank.Transfer{{From: from, To: to, Amount: 1 + rng.Int64N(maxAmount)}}
	}
	used := make(map[int]bool, 2*n)
	pick := func() int {
		for {
			if a := rng.IntN(accounts); !used[a] {
				used[a] = true
				return a
			}
		}
	}
	out := make([]bank.Transfer, n)
	for j := range out {
		out[j].From = pick()
		out[j].To = pick()
		out[j].Amount = 1 + rng.Int64N(maxAmount)
	}
	return out
}

// Row is a bank account's row of size bytes (or fewer, if the balance
// alone is longer): the balance in decimal, then a description that pads
// it, as paper 004's banking app pads its rows to 1 KB. Size 0 is the
// balance alone.
func Row(balance int64, size int) string {
	b := strconv.FormatInt(balance, 10)
	if size <= len(b)+1 {
		return b
	}
	return b + " " + strings.Repeat("d", size-len(b)-1)
}

// RowBalance returns the balance of a row Row made.
func RowBalance(row string) (int64, error) {
	b, _, _ := strings.Cut(row, " ")
	return strconv.ParseInt(b, 10, 64)
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
		rng := ClientRand(w, i)
		var step func()
		step = func() {
			if r.stopped {
				r.finished++
				return
			}
			op(i, ck, func() { w.After(sim.Duration(rng, 0, think), step) })
		}
		step()
	}
	return r
}

// MovedAccounts returns the accounts that moves touch, each once, in the
// order they first appear.
func MovedAccounts(moves []bank.Transfer) []int {
	var out []int
	seen := map[int]bool{}
	for _, m := range moves {
		for _, a := range []int{m.From, m.To} {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// Moved makes the moves on the balances of accounts (as MovedAccounts
// lists them) and returns the accounts' new rows of rowSize bytes (Row),
// or, without overdraft, the first move whose account would go below
// zero.
func Moved(accounts []int, balances []int64, moves []bank.Transfer, rowSize int, overdraft bool) ([]string, *bank.Transfer) {
	at := make(map[int]int, len(accounts))
	next := make([]int64, len(balances))
	for i, a := range accounts {
		at[a] = i
		next[i] = balances[i]
	}
	for _, m := range moves {
		if !overdraft && next[at[m.From]] < m.Amount {
			return nil, &m
		}
		next[at[m.From]] -= m.Amount
		next[at[m.To]] += m.Amount
	}
	rows := make([]string, len(next))
	for i, b := range next {
		rows[i] = Row(b, rowSize)
	}
	return rows, nil
}

// Ints parses a list's decimal elements (a list-append key's values); an
// element that is not a number is 0.
func Ints(list []string) []int {
	out := make([]int, len(list))
	for i, s := range list {
		out[i], _ = strconv.Atoi(s)
	}
	return out
}
