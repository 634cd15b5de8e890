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
// walks (DFS), and PCT. Invariants are checked in every state explored; a
// goal predicate answers liveness-style questions (the shortest schedule
// in which some server applies the client's write).
package search
