package experiments

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/workload"
)

// The shape of the report's linearizable test (the lab's "unreliable net,
// restarts, partitions, snapshots, random keys, many clients"): 15
// clients on 7 servers, each operation on one of 15 keys at random, the
// servers snapshotting at linMaxRaftState bytes of Raft state, or not (the
// report's 3A test).
const (
	linServers      = 7
	linClients      = 15
	linMaxRaftState = 8 << 10
	// linSettle bounds the clients' last operations after a round's
	// faults end.
	linSettle = 2 * time.Minute
	// linCheckTimeout is porcupine's budget (wall time); running out of it
	// is an unknown verdict, which fails the experiment.
	linCheckTimeout = time.Minute
)

// labMix is the lab's operation mix: half Appends, a twentieth Puts, the
// rest Gets.
var labMix = workload.Mix{Get: 9, Put: 1, Append: 10}

// A linOutcome is what the linearizable test measured.
type linOutcome struct {
	load
	verdict string
}

// perClient returns each client's operations per virtual second of load.
func (o linOutcome) perClient() float64 { return o.perSecond() / linClients }

// linearizable runs the report's linearizable test: rounds of the clients
// working for round on an unreliable network while the servers are split
// in two at random every 1–1.2 s; after each round the clients are asked
// to stop, the network heals, and a second later every server crashes and
// a second after that restarts, before the clients' last operations are
// awaited. Porcupine then checks the whole history; a verdict other than
// linearizable (a violation, or a check that ran out of time) is an error.
// The servers snapshot at linMaxRaftState bytes of Raft state if
// snapshots, else never.
func (s kvSystem) linearizable(seed int64, rounds int, round time.Duration, snapshots bool) (linOutcome, error) {
	maxraftstate := -1
	if snapshots {
		maxraftstate = linMaxRaftState
	}
	e, err := s.start(seed, linServers, maxraftstate)
	if err != nil {
		return linOutcome{}, err
	}
	if err := e.c.Apply(fault.Fault{Kind: fault.Unreliable, On: true}); err != nil {
		return linOutcome{}, err
	}
	clients, err := e.newClients(linClients)
	if err != nil {
		return linOutcome{}, err
	}
	var h linearize.History
	for i, ck := range clients {
		clients[i] = linearize.Record(ck, &h, i, e.w.Now)
	}
	o := linOutcome{load: load{rpcs: e.rpcs(), took: time.Duration(rounds) * round}}
	faults := rand.New(rand.NewPCG(uint64(seed), 0))
	for range rounds {
		stop := e.partitioner(faults)
		run := workload.Start(e.w, clients, workload.Spec{Mix: labMix, Keys: workload.Uniform(linClients),
			Done: func(int, workload.Kind, time.Duration, time.Duration) { o.ops++ }})
		e.w.Run(round)
		run.Stop()
		stop()
		if err := e.c.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
			return linOutcome{}, err
		}
		e.w.Run(time.Second)
		for i := range e.c.Replicas(0) {
			if err := e.c.Apply(fault.Fault{Kind: fault.Kill, Host: e.c.HostOf(0, i)}); err != nil {
				return linOutcome{}, err
			}
		}
		e.w.Run(time.Second)
		if err := e.c.Recover(); err != nil {
			return linOutcome{}, err
		}
		if !e.w.RunUntil(run.Finished, linSettle) {
			return linOutcome{}, fmt.Errorf("%s (seed %d): the clients' last operations did not complete within %v of the restart", s.name, seed, linSettle)
		}
	}
	o.rpcs = e.rpcs() - o.rpcs
	r, err := linearize.Check(linearize.KVModel(), h.Operations(), e.c.Log(), linCheckTimeout, "", "")
	if err != nil {
		return linOutcome{}, err
	}
	if !r.OK() {
		return linOutcome{}, fmt.Errorf("%s (seed %d): %s", s.name, seed, r.Problem())
	}
	o.verdict = "linearizable"
	return o, nil
}

// partitioner splits the servers in two at random (each joins a side by
// the toss of a coin) now and every 1–1.2 s after, as the lab's does,
// until the function it returns is called. It draws from rng, not from
// the world: every system compared meets the same partitions at the same
// times, whatever its own use of the world's generator.
func (e *sysEnv) partitioner(rng *rand.Rand) (stop func()) {
	stopped := false
	var next func()
	next = func() {
		if stopped {
			return
		}
		var sides [2][]int
		for i := range e.c.Replicas(0) {
			k := rng.IntN(2)
			sides[k] = append(sides[k], e.c.HostOf(0, i))
		}
		must(e.c.Apply(fault.Fault{Kind: fault.Partition, Groups: sides[:]}))
		e.w.After(time.Second+time.Duration(rng.Int64N(int64(200*time.Millisecond)+1)), next)
	}
	next()
	return func() { stopped = true }
}
