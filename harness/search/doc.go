// Package search explores a small world's schedules systematically,
// instead of sampling them from seeds: which message is delivered next
// (or dropped), which timer fires, and which fault strikes between two
// events, on unmodified node code.
//
// A node cannot be cloned, but a world is a function of its seed and of
// the choices made in it, so a state is reached by replaying its choices
// from the start (DSLabs clones its nodes; we replay). At each step the
// world offers its enabled events (sim.World.Enabled: every message due by
// the earliest other event, in any order, and that event: a message may be
// delayed, a timer is never fired early or skipped), dropping an enabled
// message within a drop budget, and the scenario's faults within a fault
// budget. A schedule is a Path, the option taken at each step; it replays
// to the same run, trace hash and all.
//
// Strategies: breadth-first to a depth with state hashing (BFS), random
// walks (DFS), PCT, and guided walks, each of which starts from a
// schedule that reached a shape of the servers' state no schedule had
// reached before (coverage-guided, as a fuzzer keeps its new-coverage
// inputs). Any of them may fire the events in the world's own order and
// search only the faults between them (Options.InOrder). Invariants are
// checked in every state explored: Raft's (with lease safety),
// linearizability of a key/value history, shardtxn's lock safety and
// atomic decisions, frangipani's lock safety under leases; a goal
// predicate answers liveness-style questions (the shortest schedule in
// which some server applies the client's write).
package search
