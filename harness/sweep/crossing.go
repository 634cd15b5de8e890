package sweep

import (
	"io"

	"github.com/replab/replab/shardtxn/txntest"
)

// A crossingSpec is the crossing scenario (txntest.Crossing) with its
// description.
type crossingSpec struct {
	txntest.Crossing
	Description string
}

// crossingScenario is the crossing under paper 000's lock waits.
func crossingScenario() Scenario {
	return crossingSpec{Crossing: txntest.Crossing{Name: "txn-crossing", Config: txntest.Config()},
		Description: "Two clients run sharded 2PC/2PL transactions that write two keys on two shards in opposite orders, 40 each, in lock step, with each transaction's second prepare held back 1-10 ms so that the pair deadlocks every round (paper 000's deadlock); randomized lock waits must let every client commit at least once."}.Scenario()
}

// Scenario returns the spec as a scenario.
func (sp crossingSpec) Scenario() Scenario {
	return Scenario{Name: sp.Name, Description: sp.Description, Run: func(seed int64, _ string, trace io.Writer) Outcome {
		rec, _, err := sp.Run(seed, trace)
		return outcome(rec, err)
	}, plant: planter(sp, crossingSpec.Scenario, func(p *crossingSpec, b Bug) bool { return b.plantShardTxn(&p.Config) })}
}
