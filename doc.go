// Package replab is a deterministic simulation lab for replicated systems.
//
// Everything runs inside one process, on virtual time, and a run is a
// function of its seed. The module's layers, bottom up:
//
//   - sim: the world (virtual clock, event queue, seeded randomness, hosts
//     that die and restart with their persisted state, a trace hash);
//     labrpc: a simulated RPC network in the shape of the 6.5840 labrpc;
//     fault: the fault vocabulary; chaos: the ChaosMonkey; wire: the
//     binary encoding of log entries and snapshots; plant: planted-bug
//     switches;
//   - raftapi: the lab's Raft API; raft: Raft as a sans-IO node;
//   - rsm: the service core on Raft (commands awaited by index and term,
//     sessions, snapshots, confirmed reads, the clerk core);
//   - kvraft, shardtxn, shardtxn/logorder, frangipani: the services (a
//     linearizable key/value store; sharded transactions by two-phase
//     commit and locking, and by a shared log; a lease and lock cache),
//     each its state machines on rsm, its RPC types and its clerk;
//   - cluster, workload, services: the harness (Raft groups, clients and
//     faults on one world), client processes, and the services deployed
//     on it; linearize, txncheck, bank: the checks; simtest, rafttest,
//     kvtest: seeds and replay for tests, and the lab's catalogues over
//     raftapi and a KV service;
//   - plots, experiments, sweep, kit, labsim, cmd/labsim: figures, seeded
//     experiments, chaos sweeps, course kits, and the command line (as a
//     library, so that a module of one's own can run its experiments and
//     scenarios with it; see examples/labext).
//
// This package itself only holds Sources, the files a course kit copies.
// See README.md for the layout and docs/DESIGN.md for the reasons.
package replab
