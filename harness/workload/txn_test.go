package workload

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A row pads its balance to the size asked for, and gives it back.
func TestRowPadsAndParses(t *testing.T) {
	for _, b := range []int64{0, -7, 123456} {
		r := Row(b, 1024)
		assert.Len(t, r, 1024)
		got, err := RowBalance(r)
		require.NoError(t, err)
		assert.Equal(t, b, got)
	}
	assert.Equal(t, "42", Row(42, 0), "size 0 is the balance alone")
	_, err := RowBalance("x 1")
	assert.Error(t, err)
}

// Paper 004's transfers: five moves over ten distinct accounts, even when
// there are only ten.
func TestPickMovesTouchesDistinctAccounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, accounts := range []int{10, 30000} {
		seen := map[int]bool{}
		for _, m := range pickMoves(rng, accounts, 5, 9) {
			assert.False(t, seen[m.From] || seen[m.To] || m.From == m.To)
			seen[m.From], seen[m.To] = true, true
			assert.True(t, m.Amount >= 1 && m.Amount <= 9, "amount %d", m.Amount)
			assert.True(t, m.From < accounts && m.To < accounts)
		}
		assert.Len(t, seen, 10)
	}
	assert.Panics(t, func() { StartBank(nil, nil, BankSpec{Accounts: 9, MaxAmount: 1, Moves: 5}, nil) }, "nine accounts cannot hold five moves")
}
