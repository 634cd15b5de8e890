package bank

import (
	"fmt"
	"strings"

	"github.com/replab/replab/checks/txncheck"
)

// Config describes the bank.
type Config struct {
	Accounts      int   // the number of accounts; a read returns a balance for each
	Total         int64 // the money in the bank, which transfers conserve
	AllowNegative bool  // whether a balance may go below zero
}

// An ErrorType names what is wrong with a read.
type ErrorType uint8

// The error types.
const (
	WrongTotal    ErrorType = iota // the balances do not add up to the total
	Negative                       // a balance is below zero
	WrongAccounts                  // the read returned a balance for too few or too many accounts
	numErrorTypes
)

var errorNames = [numErrorTypes]string{"wrong-total", "negative-value", "wrong-accounts"}

// String returns "wrong-total", "negative-value" or "wrong-accounts".
func (e ErrorType) String() string {
	if e < numErrorTypes {
		return errorNames[e]
	}
	return fmt.Sprintf("ErrorType(%d)", int(e))
}

// An Error is one read that is wrong in one way.
type Error struct {
	Op   int   // the read's id
	By   int64 // how wrong: total minus expected; the lowest balance; accounts returned minus expected
	Text string
}

// An ErrorGroup is every error of one type.
type ErrorGroup struct {
	Type  ErrorType
	Count int
	First Error // the first, in history order
	Worst Error // the farthest from right (the first of those)
}

// A Result is the bank check's verdict.
type Result struct {
	Valid  bool
	Reads  int          // the committed reads checked
	Wrong  int          // how many of them were wrong
	Errors []ErrorGroup // by type, only the types found
}

// String summarizes the result: the verdict, then a line per error type
// with its first and worst instance.
func (r *Result) String() string {
	var b strings.Builder
	if r.Valid {
		fmt.Fprintf(&b, "valid: %d committed reads, all consistent\n", r.Reads)
		return b.String()
	}
	fmt.Fprintf(&b, "invalid: %d of %d committed reads wrong\n", r.Wrong, r.Reads)
	for _, g := range r.Errors {
		fmt.Fprintf(&b, "%v × %d\n  first: %s\n  worst: %s\n", g.Type, g.Count, g.First.Text, g.Worst.Text)
	}
	return b.String()
}

// Check checks every committed read of h against cfg. An error means the
// history or the configuration is malformed: no accounts, or a transfer
// naming an account that does not exist or moving a non-positive amount.
func Check(h *History, cfg Config) (*Result, error) {
	if cfg.Accounts <= 0 {
		return nil, fmt.Errorf("bank: %d accounts: need at least one", cfg.Accounts)
	}
	r := &Result{Valid: true}
	groups := make([]*ErrorGroup, numErrorTypes)
	report := func(t ErrorType, e Error, worse bool) {
		g := groups[t]
		if g == nil {
			g = &ErrorGroup{Type: t, First: e, Worst: e}
			groups[t] = g
		} else if worse {
			g.Worst = e
		}
		g.Count++
	}
	for id, o := range h.ops {
		if t := o.Transfer; t != nil {
			if t.From < 0 || t.From >= cfg.Accounts || t.To < 0 || t.To >= cfg.Accounts {
				return nil, fmt.Errorf("bank: op %d: transfer from %d to %d: accounts are 0 to %d", id, t.From, t.To, cfg.Accounts-1)
			}
			if t.Amount <= 0 {
				return nil, fmt.Errorf("bank: op %d: transfer of %d: amounts must be positive", id, t.Amount)
			}
			continue
		}
		if o.Outcome != txncheck.OK {
			continue
		}
		r.Reads++
		wrong := false
		if n := len(o.Balances); n != cfg.Accounts {
			wrong = true
			by := int64(n - cfg.Accounts)
			report(WrongAccounts, Error{id, by, fmt.Sprintf("op %d: %v: %d balances for %d accounts", id, o, n, cfg.Accounts)},
				groups[WrongAccounts] != nil && abs(by) > abs(groups[WrongAccounts].Worst.By))
		}
		total, lowest := int64(0), int64(0)
		for i, v := range o.Balances {
			total += v
			if i == 0 || v < lowest {
				lowest = v
			}
		}
		if by := total - cfg.Total; by != 0 {
			wrong = true
			report(WrongTotal, Error{id, by, fmt.Sprintf("op %d: %v: total %d, expected %d (off by %+d)", id, o, total, cfg.Total, by)},
				groups[WrongTotal] != nil && abs(by) > abs(groups[WrongTotal].Worst.By))
		}
		if lowest < 0 && !cfg.AllowNegative {
			wrong = true
			report(Negative, Error{id, lowest, fmt.Sprintf("op %d: %v: a balance of %d", id, o, lowest)},
				groups[Negative] != nil && lowest < groups[Negative].Worst.By)
		}
		if wrong {
			r.Wrong++
			r.Valid = false
		}
	}
	for _, g := range groups {
		if g != nil {
			r.Errors = append(r.Errors, *g)
		}
	}
	return r, nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
