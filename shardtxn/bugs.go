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

	// Paper 003's options.
	resolveWithoutAsking   bool // a prepare meeting a write intent discards it without asking the coordinator
	forgetAborts           bool // presumed commit deletes an abort's entry with its decision too, before the cohorts have it
	answerBeforeReplicated bool // the client hears the decision before the coordinator's log holds it
	cleanupAborts          bool // background cleanup aborts an old prepared transaction, whatever the coordinator decided
}

// A PlantedBug is a known mistake that can be put back into a Config, so
// that a test suite can show that it catches it.
type PlantedBug struct {
	Name  string // what goes wrong, in a few words
	plant func(*Config)
}

// Plant switches the bug on in c (and, for a bug of paper 003's options,
// the option it breaks).
func (b PlantedBug) Plant(c *Config) { b.plant(c) }

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []PlantedBug {
	return []PlantedBug{
		{"decision sent before it is replicated", func(c *Config) { c.bugs.decideBeforeReplicated = true }},
		{"cohort drops its locks on a timeout without a decision", func(c *Config) { c.bugs.dropLocksOnTimeout = true }},
		{"new coordinator leader skips recovery", func(c *Config) { c.bugs.skipRecovery = true }},
		{"prepare not replicated at the shard", func(c *Config) { c.bugs.prepareNotReplicated = true }},
		{"read lock released before the decision", func(c *Config) { c.bugs.earlyReadUnlock = true }},
		// Paper 003's options: planting one of these selects the option
		// it breaks.
		{"write intent resolved without asking the coordinator", func(c *Config) { c.Conflicts, c.bugs.resolveWithoutAsking = WriteIntents, true }},
		{"presumed-commit entry deleted before every cohort has the decision", func(c *Config) { c.Presumption, c.bugs.forgetAborts = PresumedCommit, true }},
		{"client answered before the decision is replicated", func(c *Config) { c.Presumption, c.bugs.answerBeforeReplicated = PresumedCommit, true }},
		{"background cleanup aborts a transaction the coordinator committed", func(c *Config) { c.Presumption, c.bugs.cleanupAborts = PresumedCommit, true }},
	}
}
