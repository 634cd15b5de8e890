package sweep

import (
	"github.com/replab/replab/shardtxn/logorder/logordertest"
)

// A logOrderScenario is a transaction scenario on logorder
// (logordertest.Spec) with its description.
type logOrderScenario struct {
	logordertest.Spec
	Description string
}

// logOrderScenarios are logorder's scenarios with logordertest.Config.
func logOrderScenarios() []Scenario {
	return []Scenario{
		logOrderScenario{Spec: logordertest.Spec{Name: "logorder-lists", Config: logordertest.Config()}, Description: "Log-ordered optimistic transactions (paper 004) of list appends and reads, 5 nodes, 2-way replication, unreliable network, random partitions, kills and restarts, snapshots; every node's outcomes must agree, and txncheck must find the history strictly serializable."}.Scenario(),
		logOrderScenario{Spec: logordertest.Spec{Name: "logorder-bank", Config: logordertest.Config(), Bank: true}, Description: "Log-ordered bank transfers and reads of every balance, 5 nodes, 2-way replication, random partitions, kills and restarts, snapshots; every node's outcomes must agree, and every read add up to the total."}.Scenario(),
		logOrderScenario{Spec: logordertest.Spec{Name: "logorder-failover", Config: logordertest.FailoverConfig(), Bank: true, Failover: true}, Description: "Log-ordered bank transfers over paper 004's 150 s, 5 nodes, 2-way replication: the log's leader and a follower killed in turn, each down 2-25 s, with snapshots every 128 tids and 256 tids of versions, so that a restarted node is further behind than the versions kept; within 20 s of every restart the node must have caught up and the others gone further; every node's outcomes must agree, and every read add up to the total."}.Scenario(),
	}
}

// Scenario returns the spec as a scenario.
func (sp logOrderScenario) Scenario() Scenario {
	sc := onTestbed(sp.Name, sp.Description, sp.Build)
	sc.plant = planter(sp, logOrderScenario.Scenario, func(p *logOrderScenario, b Bug) bool { return b.plantLogOrder(&p.Config) })
	return sc
}
