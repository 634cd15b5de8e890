package shardtxn

// bugs are switches that plant the mistakes paper 000 and the field warn
// of, so that test suites can show they catch each one. All are off in
// real servers.
type bugs struct {
	decideBeforeReplicated bool // the coordinator sends its decision before its log holds it
	dropLocksOnTimeout     bool // a cohort drops a prepared transaction's locks when it waits too long for the decision
	skipRecovery           bool // a new coordinator leader does not finish its predecessor's transactions
	prepareNotReplicated   bool // a cohort's leader prepares in its own state, not through its shard's log
	earlyReadUnlock        bool // read locks are released at prepare, not at the decision
}

// A PlantedBug is a known mistake that can be put back into a Config, so
// that a test suite can show that it catches it.
type PlantedBug struct {
	Name  string // what goes wrong, in a few words
	plant func(*bugs)
}

// Plant switches the bug on in c.
func (b PlantedBug) Plant(c *Config) { b.plant(&c.bugs) }

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []PlantedBug {
	return []PlantedBug{
		{"decision sent before it is replicated", func(b *bugs) { b.decideBeforeReplicated = true }},
		{"cohort drops its locks on a timeout without a decision", func(b *bugs) { b.dropLocksOnTimeout = true }},
		{"new coordinator leader skips recovery", func(b *bugs) { b.skipRecovery = true }},
		{"prepare not replicated at the shard", func(b *bugs) { b.prepareNotReplicated = true }},
		{"read lock released before the decision", func(b *bugs) { b.earlyReadUnlock = true }},
	}
}
