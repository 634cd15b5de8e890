package sweep

import "fmt"

// hunters names, for every planted bug, the sweep scenario that hunts
// it: of those that find it within 20 seeds, a cheap one that finds it
// soon (docs/planted-bugs.md has the whole table).
var hunters = map[string]string{
	"raft: vote granted without the log-up-to-date check":                          "kv-linearizability",
	"raft: commit by counting replicas of an old-term entry":                       "raft-figure8",
	"raft: votedFor not persisted":                                                 "raft-votes",
	"raft: conflicting suffix not truncated":                                       "raft-figure8",
	"raft: log truncated by a stale AppendEntries":                                 "kv-linearizability",
	"raft: leader does not step down on a higher term":                             "kv-linearizability",
	"raft: entries applied before they commit":                                     "kv-linearizability",
	"raft: pre-election outlives hearing the leader (breaks leases)":               "kv-lease-elections",
	"rsm: no de-duplication: a retried write applies twice":                        "kv-linearizability",
	"rsm: writes answered before they commit":                                      "kv-linearizability",
	"rsm: reads served from any server's local state":                              "kv-linearizability",
	"rsm: de-duplication table left out of snapshots":                              "kv-lease-elections",
	"rsm: lease reads without a margin for clock drift":                            "kv-lease-drift",
	"shardtxn: decision sent before it is replicated":                              "txn-leader-outages",
	"shardtxn: cohort drops its locks on a timeout without a decision":             "txn-outages",
	"shardtxn: new coordinator leader skips recovery":                              "txn-lists",
	"shardtxn: prepare not replicated at the shard":                                "txn-lists",
	"shardtxn: read lock released before the decision":                             "txn-lists",
	"shardtxn: fixed instead of randomized lock waits":                             "txn-crossing",
	"shardtxn: write intent resolved without asking the coordinator":               "txn-lists",
	"shardtxn: presumed-commit entry deleted before every cohort has the decision": "txn-outages",
	"shardtxn: client answered before the decision is replicated":                  "txn-leader-outages",
	"shardtxn: background cleanup aborts a transaction the coordinator committed":  "txn-outages",
	"logorder: outcome decided from the newest values, not as of tid−1":            "logorder-lists",
	"logorder: commit cache not invalidated on a skipped transaction":              "logorder-lists",
	"logorder: restarted node serves reads before it has caught up":                "logorder-lists",
	"logorder: one node decides by a rule of its own":                              "logorder-lists",
	"frangipani: clerk serves after its lease ran out":                             "locks-readers",
	"frangipani: clerk's lease has no margin for clock drift":                      "locks-readers",
	"frangipani: lock granted before the previous holder's flush is applied":       "locks-isolate",
	"frangipani: dirty values dropped on revoke":                                   "locks-isolate",
}

// Hunter returns the scenario that hunts planted bug b (without b
// planted: see Planted), the one its gallery page and the planted-bug
// tables' last column name.
func Hunter(b Bug) (Scenario, error) {
	name, ok := hunters[b.String()]
	if !ok {
		return Scenario{}, fmt.Errorf("sweep: no scenario hunts %v", b)
	}
	return Lookup(name)
}
