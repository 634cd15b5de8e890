package shardtxn

import (
	"fmt"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
)

// Config configures the servers of a shardtxn deployment: coordinators and
// shards alike.
type Config struct {
	// RSM is the service core's configuration: Raft timing, snapshots
	// (MaxRaftState) and read mode.
	RSM rsm.Config
	// LockWait is how long a prepare waits for a locked key, at least:
	// each prepare waits a random time in [LockWait, 2·LockWait), paper
	// 000's randomized lock timeout, so that of two transactions that lock
	// each other out across shards one gives up first and the other goes on.
	LockWait time.Duration
	// TxnTimeout is the age at which the coordinator aborts a transaction
	// still undecided (paper 003: 5 s).
	TxnTimeout time.Duration
	// Tick is how often a coordinator leader looks for such transactions.
	Tick time.Duration
	// RPCTimeout is how long a server waits for another group's answer
	// before it tries the group's next replica.
	RPCTimeout time.Duration
	// RetryPause and RetryMax are how a server backs off when it calls
	// another group (a coordinator's prepares and decisions, a shard's
	// questions) and no replica could help, a whole round of them (or,
	// under ReplicaManager, the directory named again the one that just
	// failed): it pauses a random time in [p/2, p] from the world's random
	// numbers, p doubling from RetryPause after each such round up to
	// RetryMax (rsm.Router.SetBackoff). So a call to a group that receives
	// but cannot answer (a one-way cut) is tried again every 100–200 ms by
	// default, not every 10 ms; a call that meets an election still finds
	// the new leader within a few short pauses; and a call held back by a
	// fault that heals goes through at most RetryMax later.
	RetryPause, RetryMax time.Duration
	// OnePhaseReads serves read-only transactions with paper 000's
	// optimisation: each shard returns the values it holds at prepare,
	// taking no locks, and there is no commit phase. Faster, and not
	// strictly serializable (the paper admits stale reads). Off: read locks
	// are held until the decision, like write locks.
	OnePhaseReads bool
	// LocalReads serves a transaction on one shard that only reads (a Get)
	// as paper 000 did: the shard's leader answers from its own state, with
	// no log round, no check that it still leads and no wait for locks (it
	// reads the committed values). A Get then costs one round trip to the
	// shard instead of a Raft round, and is not linearizable: a leader cut
	// off from its group goes on answering from a state the group has moved
	// past, until it steps down (CheckQuorum: up to the Raft config's
	// ElectionMax later). Off: such a transaction goes through the shard's
	// log like any other.
	LocalReads bool
	// Relay has the coordinator leader relay a transaction whose ops are
	// all on one shard to that shard, as paper 000's coordinator relayed
	// its simple operations (GET, SET, DEL): no entry in the coordinator's
	// log and no two phases; the shard runs it as a clerk's one-shard
	// transaction (Execute) and the coordinator passes the answer back.
	// It costs a hop there and back through the coordinator leader, which
	// every operation then loads. Off: the coordinators run such a
	// transaction through 2PC like any other (a clerk given ends to the
	// shards sends it to its shard straight, either way).
	Relay bool
	// Conflicts is what a prepare does when a key it needs is held by
	// another transaction: paper 000's LockWaits (the default) or paper
	// 003's WriteIntents.
	Conflicts Conflicts
	// Presumption is what the coordinator presumes of a transaction its
	// table no longer holds: PresumedAbort (the default, paper 000) or
	// paper 003's PresumedCommit.
	Presumption Presumption
	// CleanupAge is how long a transaction stays prepared at a shard
	// before the shard leader's background cleanup asks the coordinator
	// how it ended and applies the answer. Cleanup runs only under paper
	// 003's options (WriteIntents or PresumedCommit).
	CleanupAge time.Duration
	// Discovery is how clients and servers find a group's leader: paper
	// 000's Redirect (the default) or paper 003's ReplicaManager.
	Discovery Discovery
	bugs      bugs
}

// Discovery says how clients, and servers calling other groups, find a
// group's leader.
type Discovery uint8

const (
	// Redirect is paper 000's: try the server that led last, and on a
	// wrong-leader answer, a lost message or a timeout, the next in turn
	// (rsm.Router).
	Redirect Discovery = iota
	// ReplicaManager is paper 003's: every group's leader announces
	// itself to a directory, the replica manager (rsm.Directory), and a
	// caller asks it for the leader first and whenever the server it
	// tried fails it (rsm.Router.Discover). The servers and clerks of a
	// deployment so configured need an end to the directory.
	ReplicaManager
)

// String names the option.
func (d Discovery) String() string {
	switch d {
	case Redirect:
		return "redirect"
	case ReplicaManager:
		return "replica-manager"
	}
	return fmt.Sprintf("Discovery(%d)", int(d))
}

// CoordGroup names the coordinator group in a directory.
const CoordGroup = "coord"

// ShardGroup names shard group s in a directory.
func ShardGroup(s int) string { return fmt.Sprintf("shard%d", s) }

// directory checks that a server has an end to the directory if and only
// if its configuration asks for one.
func (c Config) directory(dir *labrpc.ClientEnd) error {
	switch {
	case c.Discovery == ReplicaManager && dir == nil:
		return fmt.Errorf("shardtxn: Discovery %v needs an end to the directory, got nil", c.Discovery)
	case c.Discovery != ReplicaManager && dir != nil:
		return fmt.Errorf("shardtxn: an end to a directory under Discovery %v, which asks none", c.Discovery)
	}
	return nil
}

// Conflicts says what a prepare does on meeting a key that another
// transaction holds.
type Conflicts uint8

const (
	// LockWaits is paper 000's two-phase locking: the prepare waits for
	// the lock, a random LockWait…2·LockWait, then votes no.
	LockWaits Conflicts = iota
	// WriteIntents is paper 003's conflict resolution: a prepared write is
	// a write intent, and a prepare (or a read) meeting another
	// transaction's intent or read lock does not wait: it asks the
	// coordinator how the holder stands. Pending, the prepare aborts
	// itself (votes no); committed or aborted, the shard resolves the
	// intent (installs or discards it through its log) and goes on.
	WriteIntents
)

// String names the option.
func (c Conflicts) String() string {
	switch c {
	case LockWaits:
		return "lock-waits"
	case WriteIntents:
		return "write-intents"
	}
	return fmt.Sprintf("Conflicts(%d)", int(c))
}

// Presumption is what a coordinator answers when asked about a
// transaction that its table no longer holds.
type Presumption uint8

const (
	// PresumedAbort keeps every entry until each cohort has acknowledged
	// its decision; a missing entry means aborted (or finished, which no
	// cohort asks about).
	PresumedAbort Presumption = iota
	// PresumedCommit is paper 003's: the begin entry is the initiation
	// record, written before any prepare; the commit record deletes the
	// entry, with no acknowledgement round; an abort stays in the table
	// until every cohort has it. A missing entry means committed.
	PresumedCommit
)

// String names the option.
func (p Presumption) String() string {
	switch p {
	case PresumedAbort:
		return "presumed-abort"
	case PresumedCommit:
		return "presumed-commit"
	}
	return fmt.Sprintf("Presumption(%d)", int(p))
}

// cleans reports whether shard leaders run paper 003's background
// cleanup: its variants need it (a committed transaction's entry is gone
// under PresumedCommit; a crashed client's intents block WriteIntents).
func (c Config) cleans() bool { return c.Conflicts == WriteIntents || c.Presumption == PresumedCommit }

// DefaultConfig is strict two-phase locking with the lab's Raft timing, no
// snapshots, a lock wait of 20–40 ms and paper 003's 5 s transaction
// timeout, paper 000's lock waits and presumed abort, a cleanup age of
// 1 s for paper 003's options, and calls to other groups backing off
// from 10 ms (rsm's fixed pause) up to 200 ms.
func DefaultConfig() Config {
	return Config{RSM: rsm.DefaultConfig(), LockWait: 20 * time.Millisecond, TxnTimeout: 5 * time.Second,
		Tick: 100 * time.Millisecond, RPCTimeout: 500 * time.Millisecond, CleanupAge: time.Second,
		RetryPause: 10 * time.Millisecond, RetryMax: 200 * time.Millisecond}
}

// MaxSetting is the longest duration a Config may set: a day of virtual
// time, far past any run, and short enough that no sum or double of one
// can overflow the virtual clock (a timer set from a duration near
// MaxInt64 would).
const MaxSetting = 24 * time.Hour

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"LockWait", c.LockWait}, {"TxnTimeout", c.TxnTimeout}, {"Tick", c.Tick}, {"RPCTimeout", c.RPCTimeout}, {"CleanupAge", c.CleanupAge},
		{"RetryPause", c.RetryPause}, {"RetryMax", c.RetryMax}} {
		if err := checkSetting(d.name, d.v); err != nil {
			return fmt.Errorf("shardtxn: %w", err)
		}
	}
	if c.RetryMax < c.RetryPause {
		return fmt.Errorf("shardtxn: RetryMax %v is below RetryPause %v", c.RetryMax, c.RetryPause)
	}
	if c.Conflicts > WriteIntents {
		return fmt.Errorf("shardtxn: Conflicts %v is not LockWaits or WriteIntents", c.Conflicts)
	}
	if c.Discovery > ReplicaManager {
		return fmt.Errorf("shardtxn: Discovery %v is not Redirect or ReplicaManager", c.Discovery)
	}
	if c.Presumption > PresumedCommit {
		return fmt.Errorf("shardtxn: Presumption %v is not PresumedAbort or PresumedCommit", c.Presumption)
	}
	return c.RSM.Validate()
}
