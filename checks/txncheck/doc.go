// Package txncheck checks histories of transactions for isolation anomalies,
// in the manner of Jepsen's Elle (Kingsbury and Alvaro, "Elle: Inferring
// Isolation Anomalies from Experimental Observations", VLDB 2020), and says
// which consistency models a history violates. It needs only the standard
// library (and package fault, for the fault intervals its pages shade), so
// any Go module can import it, as it imports porcupine.
//
// # Histories
//
// A transaction is a list of micro-operations on keys, run by one process
// (client), with the virtual times at which the client invoked it and
// learned its outcome: OK (committed, with its reads' results), Fail (known
// to have aborted) or Unknown (it timed out or never completed: it may or
// may not have committed). A key holds either a list, which transactions
// append to and read whole, or a register, which they write and read.
// Every value appended or written to a key must be unique to it, so that a
// read names the transactions it saw; with lists, one read reveals the
// order of every append before it.
//
// Clients record into a History as they run, with the world's clock, just
// as they record single-key operations for porcupine:
//
//	id := h.Invoke(process, []txncheck.Op{txncheck.Append(3, 7), txncheck.Read(4)}, w.Now())
//	…
//	h.Complete(id, txncheck.OK, ops, w.Now()) // ops with the reads' results filled in
//
// A transaction never completed stays Unknown. A system that knows the
// order in which it installed versions (a shard's apply order) may record
// it with History.Installed; the check holds reads against it.
//
// # What the check infers
//
// Each list key's version order is its longest read, every other read of
// the key must be a prefix of it; registers are ordered by the installed
// order and by write-follows-read within a transaction, after their
// initial (unwritten) state. From the orders come the dependencies between
// committed transactions: ww (T2 wrote the version after T1's), wr (T2 read
// T1's version) and rw (T1 read the version before T2's); from the
// processes, session order; from the times, real-time order (T1 completed
// before T2 began). A cycle of dependencies is an anomaly. The check finds
// the strongly connected components of the graph (Tarjan, without
// recursion) and, in each, the shortest cycle of each shape (exactly in a
// small component; in a large one, the shortest a budget linear in the
// graph's size finds), which it explains step by step:
//
//	G-single: T0 → T1 → T0
//	  T0 < T1: T1 read T0's append of 1 to key 1
//	  T1 < T0: T1 read key 2 = [], the version before T0's append of 2 to key 2
//
// A transaction of unknown outcome whose write a read shows has committed:
// it takes part like a committed one, though its own reads are unknown,
// and no process or real-time edge leaves it (it may have committed long
// after its client gave up). One whose writes no read shows has no
// dependency edges: its absence is never an anomaly, and since nothing is
// assumed of it, it cannot hide one.
//
// # Anomalies
//
// Cycles, named by Adya and Elle, each by its most specific class:
//   - G0: ww edges only (dirty write).
//   - G1c: ww and wr edges, at least one wr (circular information flow).
//   - G-single: exactly one rw edge (read skew).
//   - G-nonadjacent: several rw edges, no two adjacent.
//   - G2-item: two adjacent rw edges (write skew).
//   - Each with -process (it needs a process's order) and -realtime (it
//     needs real-time order) variants, reported only where the plain
//     cycle does not exist in the same component.
//
// And anomalies that are not cycles:
//   - G1a (aborted read): a committed read shows an aborted transaction's write.
//   - G1b (intermediate read): a read shows a write its transaction later overwrote.
//   - lost-update: two committed transactions read the same version of a
//     key and both wrote it.
//   - internal: a read disagrees with its own transaction's earlier ops.
//   - garbage-read: a read shows a value nobody wrote.
//   - duplicate-elements: a list read shows a value twice.
//   - incompatible-order: two reads of a list disagree on a prefix.
//
// # Models
//
// A model is the set of anomalies it proscribes; each proscribes all that
// the one before proscribes:
//
//	read-committed               G0, G1a, G1b, G1c, internal, garbage-read, duplicate-elements, incompatible-order
//	snapshot-isolation           + G-single, G-nonadjacent, lost-update (allows G2-item, write skew)
//	repeatable-read              + G2-item
//	serializable                 the same as repeatable read, on these histories (no predicates)
//	strong-session-serializable  + the -process variants
//	strict-serializable          + the -realtime variants
//
// Check(h, model) reports Valid, Invalid or Inconclusive (a cycle search
// ran out of budget before ruling a cycle out: possible only for snapshot
// isolation, whose proscribed cycles are not just "any cycle", and never a
// pass), the anomalies the model proscribes that it found, and the weakest
// model they violate. Result.WriteHTML draws each anomaly's transactions on
// a time axis with the cycle's edges and the fault intervals shaded.
//
// The check takes time near-linear in the history: values are indexed once
// by key, version orders built once per key, edges kept in compressed
// adjacency arrays with integer ids, and the real-time order reduced to a
// frontier of overlapping transactions.
package txncheck
