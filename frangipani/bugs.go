package frangipani

import "github.com/replab/replab/sim/plant"

// bugs are switches that plant the mistakes a lease/lock cache can make
// (the Frangipani report's among them), so that test suites can show they
// catch each one. All are off in real deployments.
type bugs struct {
	serveExpired     bool // the clerk serves from its cache after its lease ran out
	noDriftMargin    bool // the clerk's lease is the server's, with no margin for drift
	grantBeforeFlush bool // a revoked lock goes to the waiter at once, before its holder flushes
	dropDirty        bool // a revoked holder releases without sending its dirty value
}

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []plant.Bug[Config] {
	return []plant.Bug[Config]{
		{Name: "clerk serves after its lease ran out", Plant: func(c *Config) { c.bugs.serveExpired = true }},
		{Name: "clerk's lease has no margin for clock drift", Plant: func(c *Config) { c.bugs.noDriftMargin = true }},
		{Name: "lock granted before the previous holder's flush is applied", Plant: func(c *Config) { c.bugs.grantBeforeFlush = true }},
		{Name: "dirty values dropped on revoke", Plant: func(c *Config) { c.bugs.dropDirty = true }},
	}
}
