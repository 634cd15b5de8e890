package shardtxn

import "github.com/replab/replab/sim/plant"

// bugs are switches that plant the mistakes paper 000 and the field warn
// of, so that test suites can show they catch each one. All are off in
// real servers.
type bugs struct {
	decideBeforeReplicated bool // the coordinator sends its decision before its log holds it
	dropLocksOnTimeout     bool // a cohort drops a prepared transaction's locks when it waits too long for the decision
	skipRecovery           bool // a new coordinator leader does not finish its predecessor's transactions
	prepareNotReplicated   bool // a cohort's leader prepares in its own state, not through its shard's log
	earlyReadUnlock        bool // read locks are released at prepare, not at the decision
	fixedLockWait          bool // every prepare waits exactly LockWait for a lock (paper 000's first design)

	// Paper 003's options.
	resolveWithoutAsking   bool // a prepare meeting a write intent discards it without asking the coordinator
	forgetAborts           bool // presumed commit deletes an abort's entry with its decision too, before the cohorts have it
	answerBeforeReplicated bool // the client hears the decision before the coordinator's log holds it
	cleanupAborts          bool // background cleanup aborts an old prepared transaction, whatever the coordinator decided
}

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []plant.Bug[Config] {
	return []plant.Bug[Config]{
		{Name: "decision sent before it is replicated", Plant: func(c *Config) { c.bugs.decideBeforeReplicated = true }},
		{Name: "cohort drops its locks on a timeout without a decision", Plant: func(c *Config) { c.bugs.dropLocksOnTimeout = true }},
		{Name: "new coordinator leader skips recovery", Plant: func(c *Config) { c.bugs.skipRecovery = true }},
		{Name: "prepare not replicated at the shard", Plant: func(c *Config) { c.bugs.prepareNotReplicated = true }},
		{Name: "read lock released before the decision", Plant: func(c *Config) { c.bugs.earlyReadUnlock = true }},
		{Name: "fixed instead of randomized lock waits", Plant: func(c *Config) { c.bugs.fixedLockWait = true }},
		// Paper 003's options: planting one of these selects the option
		// it breaks.
		{Name: "write intent resolved without asking the coordinator", Plant: func(c *Config) { c.Conflicts, c.bugs.resolveWithoutAsking = WriteIntents, true }},
		{Name: "presumed-commit entry deleted before every cohort has the decision", Plant: func(c *Config) { c.Presumption, c.bugs.forgetAborts = PresumedCommit, true }},
		{Name: "client answered before the decision is replicated", Plant: func(c *Config) { c.Presumption, c.bugs.answerBeforeReplicated = PresumedCommit, true }},
		{Name: "background cleanup aborts a transaction the coordinator committed", Plant: func(c *Config) { c.Presumption, c.bugs.cleanupAborts = PresumedCommit, true }},
	}
}
