package txntest

import "github.com/replab/replab/shardtxn"

// A Variant is one combination of paper 000's and paper 003's answers
// to the same two questions: what a prepare does on a held key (lock
// waits or write intents), and what the coordinator presumes of a
// transaction its table no longer holds (abort or commit).
type Variant struct {
	Short       string // the scenario names' suffix
	Description string // a sentence on the variant, for its scenarios
	Conflicts   shardtxn.Conflicts
	Presumption shardtxn.Presumption
}

// Variants returns every combination, paper 000's (shardtxn's
// default) first and paper 003's last.
func Variants() []Variant {
	return []Variant{
		{"2pl", "Paper 000's design: lock waits and presumed abort.", shardtxn.LockWaits, shardtxn.PresumedAbort},
		{"intents", "The shards resolve conflicts by paper 003's write intents (a prepare that meets a pending transaction's intent aborts itself), and the coordinator presumes abort.", shardtxn.WriteIntents, shardtxn.PresumedAbort},
		{"prc", "The shards wait for locks, and the coordinator presumes commit (paper 003: a commit leaves the coordinator's table with its decision, and the shards' background cleanup asks about transactions prepared for long).", shardtxn.LockWaits, shardtxn.PresumedCommit},
		{"acid", "Paper 003's design: write intents, presumed commit and the shards' background cleanup.", shardtxn.WriteIntents, shardtxn.PresumedCommit},
	}
}

// String names the variant's options.
func (v Variant) String() string { return v.Conflicts.String() + "/" + v.Presumption.String() }

// With returns cfg with the variant's options.
func (v Variant) With(cfg shardtxn.Config) shardtxn.Config {
	cfg.Conflicts, cfg.Presumption = v.Conflicts, v.Presumption
	return cfg
}
