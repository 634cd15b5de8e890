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
// A read's Values are nil for a nil read (the key does not exist, or the
// read never completed) and a non-nil empty slice for the empty list:
// Read(k) and Read(k, []int{}...) differ, and print as read(k) = nil and
// read(k) = []. For a list, both are its initial state.
//
// A process runs one transaction at a time: Check rejects a history in
// which a process began a transaction before its previous one completed,
// naming both, with one exception. A transaction of unknown outcome never
// completed, as far as anyone knows, so its client may give up on it and
// go on: the process's next transaction may begin at any time after it,
// and no process edge leaves the unknown one.
//
// # What the check infers
//
// Each list key's version order is its longest read (or the installed
// order, if longer); every other read of the key must be a prefix of it,
// and each transaction's appends to the key must appear in it in the
// transaction's order. A committed append that no read shows was
// installed after every read of the key (a list only grows): it follows
// the longest read in the version order, and every read that saw the
// whole longest read precedes it (an rw edge). Registers are ordered by
// the installed order, by write-follows-read (a committed transaction
// that read version x and then wrote y installed y after x) and, if
// Options ask for them, by each process's order (sequential keys) or the
// real-time order (linearizable keys) of the transactions on the key, all
// after their initial (unwritten) state; sources that contradict each
// other are cyclic-versions, and that key then orders nothing.
//
// Write-follows-read is on by default, since every system whose version
// order is the order in which it installs versions satisfies it (a
// transaction reads a version, then installs its own at commit, after).
// Sequential and linearizable keys are off by default: each is a promise
// about the system under test (each key sequentially consistent, or
// linearizable) that no transactional model makes on its own, and turning
// them on for a system that does not keep it would flag valid histories.
//
// From the orders come the dependencies between committed transactions:
// ww (T2 wrote the version after T1's), wr (T2 read T1's version) and rw
// (T1 read the version before T2's); from the processes, session order;
// from the times, real-time order (T1 completed before T2 began). A cycle
// of dependencies is an anomaly. The check finds the strongly connected
// components of the graph (Tarjan, without recursion) and, in each, the
// shortest cycle of each shape (exactly in a small component; in a large
// one, the shortest a budget linear in the graph's size finds), which it
// explains step by step:
//
//	G-single: T0 → T1 → T0
//	  T0 < T1: T1 read T0's append of 1 to key 1
//	  T1 < T0: T1 read key 2 = nil, the version before T0's append of 2 to key 2
//
// A transaction of unknown outcome whose write a read (or the installed
// order) shows has committed: it takes part like a committed one, its
// unread appends included, though its own reads are unknown, and no
// process or real-time edge leaves it (it may have committed long after
// its client gave up). One whose writes no read shows has no dependency
// edges: its absence is never an anomaly, and since nothing is assumed of
// it, it cannot hide one.
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
//   - dirty-update: a committed append or write installed directly on an
//     aborted transaction's version (in a list read, or the installed order).
//   - lost-update: two committed transactions read the same version of a
//     key (its initial state included) and both wrote it.
//   - internal: a read disagrees with its own transaction's earlier ops.
//   - future-read: a read shows its own transaction's later append or write.
//   - garbage-read: a read shows a value nobody wrote. It hides nothing:
//     the rest of the history is checked as if the value were not there.
//   - duplicate-elements: a list read shows a value twice.
//   - incompatible-order: two reads of a list disagree on a prefix, or a
//     read shows a transaction's append without its earlier one.
//   - cyclic-versions: a register's version-order sources contradict each other.
//
// # Models
//
// A model is the set of anomalies it proscribes, as Elle's model graph
// gives it (see Model for the one difference). Models form a lattice:
//
//	read-uncommitted                   G0, duplicate-elements, cyclic-versions, garbage-read
//	read-committed                     + G1a, G1b, G1c, incompatible-order, dirty-update, future-read
//	snapshot-isolation                 + internal, lost-update, G-single, G-nonadjacent (allows G2-item, write skew)
//	repeatable-read                    read-committed + lost-update, G-single, G-nonadjacent, G2-item
//	serializable                       both: every cycle of ww, wr, rw
//	strong-session-snapshot-isolation  snapshot isolation + G0, G1c, G-single, G-nonadjacent -process
//	strong-snapshot-isolation          + the same four -realtime
//	strong-session-serializable        serializable + every -process cycle
//	strict-serializable                everything: every -realtime cycle too
//
// Check(h, model) reports Valid, Invalid or Inconclusive (a cycle search
// ran out of budget before ruling a cycle out: possible only for models
// that allow some cycles, and never a pass), the anomalies the model
// proscribes that it found, and the weakest model they violate.
// CheckWith takes Options: the register options above, and a set of
// anomalies to check for without (or beside) a model, each with its
// special cases (Elle's "anomalies implying it": G1c brings G0 and
// future-read, G-single-realtime brings G-single-process and G-single).
// Result.WriteHTML draws each anomaly's transactions on a time axis with
// the cycle's edges and the fault intervals shaded.
//
// The check takes time near-linear in the history: values are indexed once
// by key, version orders built once per key, edges kept in compressed
// adjacency arrays with integer ids, and the real-time order reduced to a
// frontier of overlapping transactions. (One exception: every read of a
// list key's whole longest read gets an rw edge to each unread append of
// the key, a product that is small unless many reads see a key no read
// ever sees grow.)
package txncheck
