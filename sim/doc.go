// Package sim is the deterministic world every simulation in this module runs in.
//
// A World owns a virtual clock, an event queue ordered by (virtual time,
// insertion sequence), seeded random streams and a set of hosts.
// Everything inside a world happens on the goroutine that calls Run, RunUntil
// or Step, one event at a time, so a run is a function of its seed: two worlds
// made from the same seed and driven the same way fire the same events in the
// same order and end with the same trace hash.
//
// Node code built on a world is sans-IO: it never starts goroutines, sleeps or
// reads the wall clock, and it draws randomness only from the world's
// streams: its host's (Host.Rand), or a named one (World.Stream), so that
// what one part of a run draws does not shift what another draws. It gets
// time from Host.Now, and timers from Host.NewTimer and Host.After.
//
// A Host is a simulated machine. It owns its timers and pending events and a
// Persister. Host.Kill drops every pending event the host owns; only the bytes
// saved in its Persister survive, and Host.Restart lets the caller build fresh
// node objects from them.
//
// Many worlds may run side by side in one process, one goroutine each: the
// package holds no mutable state of its own.
package sim
