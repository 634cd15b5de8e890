// Package testbed runs one run, given as data: a deployment of Raft groups
// on hosts (harness/cluster), the network's parameters and modes, clients
// at work, a nemesis, how long the faults last, what must happen after each
// heal, and the checks that judge the history. Run.Execute builds the
// world from the run's seed, carries the run out and returns a Record —
// history size, fault log, summary, stalls, verdict — and an error only
// when the run cannot be carried out as given. It never takes a test
// object: a sweep is a run per seed plus its verdict, an experiment a run
// per point, a service's test a short run.
//
// The package imports no service. What a run deploys and how its clients
// talk to it is given by each service's own test-support package (as
// kvraft/kvtest), through Workload and Check.
//
// A nemesis is data too: a schedule of faults (Schedule), drawn up front
// from its own random stream when it is random (Generate), so that the
// faults a seed brings are known before the run begins, and written to
// the fault log as they are applied. A nemesis that must watch the run (a
// leader's first entries, a vote just cast) is a Reactive one.
//
// Liveness is a check like the others: after each heal the schedule
// declares (and after the last one), an operation that began after it
// must complete within Run.Progress; a stall fails the run and names its
// moment.
package testbed
