// Package logorder is a partitioned, replicated key/value store with
// optimistic transactions ordered by one replicated log: the design of
// paper 004 ("Nami"), after Calvin and FaunaDB, beside package shardtxn's
// two-phase commit with two-phase locking, on the same workloads, faults
// and checks.
//
// # Layout
//
// Every node is a member of one Raft group (an rsm server) whose log holds
// every transaction; a transaction's tid is its log index. A key's slot is
// its first two bytes, a number in 0…2^15−1; a Layout cuts the slots into
// ranges and gives each range to Replicas nodes. A node keeps a
// multi-version store of its ranges' keys, each version annotated with the
// tid that wrote it.
//
// # Transactions
//
// The fat client (Clerk) begins a transaction at a snapshot tid, the most
// recent tid of a random server that has processed the caller's min tid;
// reads each key as of the snapshot from a random owner (which waits, for
// a while, until it has processed the snapshot; an owner that did not
// answer within the timeout is avoided for twice the timeout, by clients
// and by nodes fetching values alike, so that a dead node does not cost
// every other try a timeout); buffers writes (reads see
// them); and commits the values it read and the writes through the log's
// leader (a retried commit whose entry the log holds, not yet applied,
// waits on that entry: it is not logged again). Every node processes the log in order. A transaction that writes
// none of a node's keys is skipped; any other is decided by comparing each
// value it read with the key's value as of tid−1, taken from the node's
// store, its commit cache, or an owner that has processed tid−1: Applied
// (APPLIED in the paper: its writes become versions of tid) or
// ConflictIgnored (CONFLICT_IGNORED); a transaction whose snapshot is not
// before its own tid (a snapshot from the future) is Rejected. The outcome is
// a function of the log's prefix, so every node that decides a
// transaction decides it alike; the leader answers the client. While the
// transaction at the head of its queue waits for other owners' values, a
// node fetches those of the transactions queued behind it (up to
// prefetchWindow of them), so that a node with a backlog (restarted from
// its snapshot, or back from a partition) does not wait a round trip per
// transaction; the paper's nodes fetch for one transaction at a time
// (§2.3).
//
// # Consistency
//
// The paper calls its transactions snapshot isolated. They are stronger:
// a transaction applies only if every value it read is still the value
// as of the tid before its own, so it is as if it ran alone at its tid,
// and a tid is assigned between the commit's call and its answer. Every
// transaction that commits through the log, read-only ones too, is
// therefore strictly serializable, and the tests check exactly that
// (txncheck.StrictSerializable). Read-only transactions answered from
// their snapshot alone (Clerk.SetSnapshotReads) are serializable but not
// strictly: a snapshot from a server that lags misses transactions that
// completed before it began, and, begun at min tid 0, a client's own
// writes. Beginning at the client's last tid (Clerk.LastTid) restores
// read-your-writes.
//
// # Commit cache
//
// A node remembers the writes of the last CacheSize transactions it
// decided to keys it does not keep, by key, and uses them instead of
// asking the owners. A transaction it skips may have written such keys:
// the cache forgets them. A node decides (and caches the writes of) a
// transaction whose reads it can all answer itself, even if it writes
// none of its keys.
//
// # Crash recovery
//
// Nodes keep different keys, so a leader's Raft snapshot cannot stand in
// for a follower's state. Each node saves its own snapshot (the processed
// tid, the store and the transactions queued after it, with the log
// service's sessions) every SnapshotEvery tids, and tells the other nodes
// its tid. The smallest such tid a node has heard of is the watermark:
// no node will restart from an older one. A restarted node restores its
// snapshot and processes the rest of the log again (writing a version
// again is idempotent), asking the other owners for values as of its
// snapshot or later; so versions as of the watermark or later are never
// collected, and each node trims its log below the watermark, which no
// node needs to catch up. While a node is down, the watermark stays at
// its last snapshot: the others keep the log and the versions since then
// (memory grows with the time it is down, as an unbounded log did
// before), and trim them once it is back and has saved a snapshot. A
// node that has not processed a tid a read asks for waits ReadWait at
// most, then answers ErrBehind, so that the client asks another owner: a
// restarted node does not stall the clients while it catches up, as the
// paper's did.
//
// # Planted bugs
//
// PlantedBugs lists mistakes that can be switched on in a Config, for the
// tests to show that each is caught: among them a harsher form of the
// paper's own. The paper's restarted node advertised itself before it had
// caught up and held the reads sent to it until it had, which stalls the
// clients (experiment nami-failover draws it); the planted one answers
// them from what it has applied, which is wrong, and the checks catch it.
package logorder
