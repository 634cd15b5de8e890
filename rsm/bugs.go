package rsm

// bugs are switches that plant known mistakes of services on Raft, so that
// test suites can show they catch each one. All are off in real servers.
type bugs struct {
	noDedup            bool // apply a retried request again
	replyBeforeCommit  bool // answer requests as soon as they are in the leader's log
	localReads         bool // serve reads from local state on any server
	snapshotNoSessions bool // leave the session table out of snapshots
	leaseNoMargin      bool // run Raft's leases with no margin for clock drift
}

// A PlantedBug is a known mistake that can be put back into a Server's
// Config, so that a test suite can show that it catches it.
type PlantedBug struct {
	Name  string // what goes wrong, in a few words
	plant func(*bugs)
}

// Plant switches the bug on in c.
func (b PlantedBug) Plant(c *Config) { b.plant(&c.bugs) }

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []PlantedBug {
	return []PlantedBug{
		{"no de-duplication: a retried write applies twice", func(b *bugs) { b.noDedup = true }},
		{"writes answered before they commit", func(b *bugs) { b.replyBeforeCommit = true }},
		{"reads served from any server's local state", func(b *bugs) { b.localReads = true }},
		{"de-duplication table left out of snapshots", func(b *bugs) { b.snapshotNoSessions = true }},
		{"lease reads without a margin for clock drift", func(b *bugs) { b.leaseNoMargin = true }},
	}
}
