package logorder_test

import (
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"testing"

	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/sim/simtest"
)

// TestPlantedBugsCaught plants each of logorder's bugs in turn and shows
// that the suite's checks catch it, with the test and seed that did.
func TestPlantedBugsCaught(t *testing.T) {
	bugs := logorder.PlantedBugs()
	cases := []simtest.Case[logorder.Config]{
		{Name: "logorder-lists", Run: sweepCase(false)},
	}
	simtest.HuntBugs(t, logordertest.Config, bugs, cases, 3)
}
