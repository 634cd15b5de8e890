// Package replab is a deterministic simulation lab for replicated systems.
//
// Everything runs inside one process, on virtual time, and a run is a
// function of its seed:
//
//   - sim: the world (virtual clock, event queue, seeded randomness, hosts
//     that die and restart with their persisted state, a trace hash);
//   - labrpc: a simulated RPC network with loss, delay, reordering,
//     bandwidth and partitions, in the shape of the 6.5840 labrpc;
//   - chaos: a ChaosMonkey that partitions, isolates, kills and restarts
//     hosts, on a script or at random;
//   - simtest: seeds, summaries and replay commands for world-driven tests.
//
// See README.md for the layout of the module and how to run it.
package replab
