package shardtxn_test

import (
	"testing"

	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim/simtest"
)

// TestStrictSerializable runs list-append transactions under a random
// nemesis and checks the history with txncheck.
func TestStrictSerializable(t *testing.T) {
	simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
		return result(t, lists(t, seed, shardtxn.DefaultConfig()))
	})
}

// TestBank runs bank transfers and reads of every balance under a random
// nemesis and checks that every read adds up.
func TestBank(t *testing.T) {
	simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
		return result(t, banking(t, seed, shardtxn.DefaultConfig()))
	})
}
