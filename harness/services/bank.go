package services

import (
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/harness/workload"
)

// movedAccounts returns the accounts that moves touch, each once, in the
// order they first appear.
func movedAccounts(moves []bank.Transfer) []int {
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

// moved makes the moves on the balances of accounts (as movedAccounts
// lists them) and returns the accounts' new rows of rowSize bytes, or,
// without overdraft, the first move whose account would go below zero.
func moved(accounts []int, balances []int64, moves []bank.Transfer, rowSize int, overdraft bool) ([]string, *bank.Transfer) {
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
		rows[i] = workload.Row(b, rowSize)
	}
	return rows, nil
}
