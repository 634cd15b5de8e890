package raft

import "github.com/replab/replab/sim/plant"

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

// PlantedBugs returns every bug that can be planted, in a fixed order.
func PlantedBugs() []plant.Bug[Config] {
	return []plant.Bug[Config]{
		{Name: "vote granted without the log-up-to-date check", Plant: func(c *Config) { c.bugs.voteWithoutLogCheck = true }},
		{Name: "commit by counting replicas of an old-term entry", Plant: func(c *Config) { c.bugs.commitOldTerm = true }},
		{Name: "votedFor not persisted", Plant: func(c *Config) { c.bugs.forgetVote = true }},
		{Name: "conflicting suffix not truncated", Plant: func(c *Config) { c.bugs.keepConflicts = true }},
		{Name: "log truncated by a stale AppendEntries", Plant: func(c *Config) { c.bugs.truncateStale = true }},
		{Name: "leader does not step down on a higher term", Plant: func(c *Config) { c.bugs.noStepDown = true }},
		{Name: "entries applied before they commit", Plant: func(c *Config) { c.bugs.applyUncommitted = true }},
		{Name: "pre-election outlives hearing the leader (breaks leases)", Plant: func(c *Config) { c.bugs.preVoteOutlivesLeader = true }},
	}
}
