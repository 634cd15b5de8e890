package logorder

import "github.com/replab/replab/sim/plant"

// bugs are switches that plant the mistakes paper 004 reports or invites,
// so that test suites can show they catch each one. All are off in real
// servers.
type bugs struct {
	latestValues bool // decide from the owners' newest values, not the values as of tid−1
	noInvalidate bool // the commit cache keeps a key's value when a skipped transaction may have written it
	earlyReads   bool // a restarted node advertises the tids it has logged and serves reads before it has applied them
	localRule    bool // node 0 decides by a rule of its own: it ignores the reads of keys it does not keep
}

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []plant.Bug[Config] {
	return []plant.Bug[Config]{
		{Name: "outcome decided from the newest values, not as of tid−1", Plant: func(c *Config) { c.bugs.latestValues = true }},
		{Name: "commit cache not invalidated on a skipped transaction", Plant: func(c *Config) { c.bugs.noInvalidate = true }},
		{Name: "restarted node serves reads before it has caught up", Plant: func(c *Config) { c.bugs.earlyReads = true }},
		{Name: "one node decides by a rule of its own", Plant: func(c *Config) { c.bugs.localRule = true }},
	}
}
