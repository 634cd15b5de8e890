package sweep

import (
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
)

// A txnScenario is a transaction scenario on shardtxn (txntest.Spec)
// with its description.
type txnScenario struct {
	txntest.Spec
	Description string
}

// txnScenarios are shardtxn's scenarios with its default configuration,
// snapshotting often, then each again under each of paper 003's variants.
func txnScenarios() []Scenario {
	base := []txnScenario{
		{Spec: txntest.Spec{Name: "txn-lists"}, Description: "Sharded 2PC/2PL transactions of list appends and reads (3 shards and a coordinator group on 3 shared hosts), unreliable network, random partitions, kills and restarts, snapshots; txncheck for strict serializability, and every lock released, at the end."},
		{Description: "Sharded 2PC/2PL transactions of list appends and reads, every replica on a host of its own, the coordinators cut off from the shards again and again for 1-8 s (past the 5 s transaction timeout); txncheck for strict serializability, and every lock released, at the end.", Spec: txntest.Spec{Name: "txn-outages", Outages: true}},
		{Description: "Sharded 2PC/2PL transactions of list appends and reads, every replica on a host of its own, the coordinator leader (and the shards) cut off from the other coordinators again and again for 1-8 s, so that it decides but cannot replicate its decisions; txncheck for strict serializability, and every lock released, at the end.", Spec: txntest.Spec{Name: "txn-leader-outages", LeaderOutages: true}},
		{Description: "Sharded 2PC/2PL bank transfers across shards and reads of every balance, random partitions, kills and restarts, snapshots; every read must add up to the total, and every lock be released, at the end.", Spec: txntest.Spec{Name: "txn-bank", Bank: true}},
	}
	var out []Scenario
	for i, v := range txntest.Variants() {
		for _, sp := range base {
			sp.Config = v.With(txntest.Config())
			if i > 0 {
				sp.Name += "-" + v.Short
				sp.Description += " " + v.Description
			}
			out = append(out, sp.Scenario())
		}
	}
	// Paper 003's whole design finds leaders through its replica manager:
	// the lists and the leader outages again, so.
	last := txntest.Variants()[len(txntest.Variants())-1]
	for _, sp := range []txnScenario{base[0], base[2]} {
		sp.Config = last.With(txntest.Config())
		sp.Config.Discovery = shardtxn.ReplicaManager
		sp.Name += "-" + last.Short + "-rm"
		sp.Description += " " + last.Description + " Clients and servers find each group's leader through the replica manager, a directory the leaders announce themselves to (outside the faults)."
		out = append(out, sp.Scenario())
	}
	return out
}

// Scenario returns the spec as a scenario.
func (sp txnScenario) Scenario() Scenario {
	sc := onTestbed(sp.Name, sp.Description, sp.Build)
	sc.plant = planter(sp, txnScenario.Scenario, func(p *txnScenario, b Bug) bool { return b.plantShardTxn(&p.Config) })
	return sc
}
