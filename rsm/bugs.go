package rsm

import "github.com/replab/replab/sim/plant"

// bugs are switches that plant known mistakes of services on Raft, so that
// test suites can show they catch each one. All are off in real servers.
type bugs struct {
	noDedup            bool // apply a retried request again
	replyBeforeCommit  bool // answer requests as soon as they are in the leader's log
	localReads         bool // serve reads from local state on any server
	snapshotNoSessions bool // leave the session table out of snapshots
	leaseNoMargin      bool // run Raft's leases with no margin for clock drift
}

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []plant.Bug[Config] {
	return []plant.Bug[Config]{
		{Name: "no de-duplication: a retried write applies twice", Plant: func(c *Config) { c.bugs.noDedup = true }},
		{Name: "writes answered before they commit", Plant: func(c *Config) { c.bugs.replyBeforeCommit = true }},
		{Name: "reads served from any server's local state", Plant: func(c *Config) { c.bugs.localReads = true }},
		{Name: "de-duplication table left out of snapshots", Plant: func(c *Config) { c.bugs.snapshotNoSessions = true }},
		{Name: "lease reads without a margin for clock drift", Plant: func(c *Config) { c.bugs.leaseNoMargin = true }},
	}
}
