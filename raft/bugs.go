package raft

// bugs are switches that put known Raft mistakes back, so that test suites
// can show they catch each one. All are off in every real node.
type bugs struct {
	voteWithoutLogCheck   bool // grant votes without the log-up-to-date check
	commitOldTerm         bool // commit by counting replicas of an earlier term's entry (Figure 8)
	forgetVote            bool // do not persist votedFor
	keepConflicts         bool // overwrite conflicting entries but keep the suffix after them
	truncateStale         bool // cut the log after a (possibly stale) AppendEntries' last entry
	noStepDown            bool // a leader that sees a higher term keeps leading
	applyUncommitted      bool // apply entries as soon as they are in the log
	preVoteOutlivesLeader bool // a pre-election goes on after the leader is heard, into an election
}

// A PlantedBug is a known Raft mistake that can be put back into a node's
// Config, so that a test suite (this package's, a service's, a course's)
// can show that it catches it.
type PlantedBug struct {
	Name  string // what goes wrong, in a few words
	plant func(*bugs)
}

// Plant switches the bug on in c.
func (b PlantedBug) Plant(c *Config) { b.plant(&c.bugs) }

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []PlantedBug {
	return []PlantedBug{
		{"vote granted without the log-up-to-date check", func(b *bugs) { b.voteWithoutLogCheck = true }},
		{"commit by counting replicas of an old-term entry", func(b *bugs) { b.commitOldTerm = true }},
		{"votedFor not persisted", func(b *bugs) { b.forgetVote = true }},
		{"conflicting suffix not truncated", func(b *bugs) { b.keepConflicts = true }},
		{"log truncated by a stale AppendEntries", func(b *bugs) { b.truncateStale = true }},
		{"leader does not step down on a higher term", func(b *bugs) { b.noStepDown = true }},
		{"entries applied before they commit", func(b *bugs) { b.applyUncommitted = true }},
		{"pre-election outlives hearing the leader (breaks leases)", func(b *bugs) { b.preVoteOutlivesLeader = true }},
	}
}

// PlantedBugNamed returns the planted bug called name, or false.
func PlantedBugNamed(name string) (PlantedBug, bool) {
	for _, b := range PlantedBugs() {
		if b.Name == name {
			return b, true
		}
	}
	return PlantedBug{}, false
}
