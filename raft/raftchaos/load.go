package raftchaos

import (
	"errors"
	"fmt"
	"time"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim"
)

// Load is a testbed workload on one Raft group whose nodes Logs.Factory
// makes (the run's group 0): a client that, every 0–Gap of virtual time,
// gives a fresh command to every live node that thinks it leads, as the
// lab's Figure 8 test does. A command counts as progress when a node
// applies it. Its probe gets a fresh command committed by every node, as
// the lab's One does; its check (Agree) is Logs': every index holds one
// command on every node, and a violation ends the run as it is found.
// Make one per run.
type Load struct {
	Logs *rafttest.Logs
	Gap  time.Duration
	// MaxBytes, if positive, bounds the bytes of RPC arguments the network
	// may carry while the client gives commands: past it, at the client's
	// next round, the run fails as a storm (a planted bug's AppendEntries
	// storm costs by the bytes it copies far more than by its events).
	MaxBytes int64

	started map[any]time.Duration // the commands given, until one is applied: when
	stopped bool
}

// Start starts the client.
func (l *Load) Start(e *testbed.Env) (testbed.Load, error) {
	if l.Logs == nil || l.Gap <= 0 {
		return nil, errors.New("rafttest: a load needs its group's Logs and a positive Gap")
	}
	w := e.World
	l.started = map[any]time.Duration{}
	l.Logs.OnViolation(func(err error) { e.Fail(err.Error()) })
	l.Logs.OnApply(func(_, _ int, cmd any) {
		e.Ops = l.Logs.MaxIndex() // so that a run a violation ends says how far it got
		if start, ok := l.started[cmd]; ok {
			delete(l.started, cmd)
			e.Completed(start)
		}
	})
	var client func()
	client = func() {
		if l.stopped {
			return
		}
		if b := e.Cluster.Net().GetTotalBytes(); l.MaxBytes > 0 && b > l.MaxBytes {
			e.FailAs(testbed.KindStorm, fmt.Sprintf("storm: the network carried %d bytes of RPC arguments by virtual time %v, more than %d", b, w.Now(), l.MaxBytes))
			return
		}
		for i := range l.Logs.Nodes() {
			if rf := node(e.Cluster, i); rf != nil {
				cmd := w.Stream("client 0").Int()
				if _, _, leads := rf.Start(cmd); leads {
					l.started[cmd] = w.Now()
				}
			}
		}
		w.After(sim.Duration(w.Stream("client 0"), 0, l.Gap), client)
	}
	w.After(0, client)
	return l, nil
}

// node returns replica i of c's group 0, or nil while it is down.
func node(c *cluster.Cluster, i int) raftapi.Raft {
	if r := c.Replica(0, i); r != nil {
		return r.(raftapi.Raft)
	}
	return nil
}

// Stop stops the client.
func (l *Load) Stop() { l.stopped = true }

// Finished reports whether the client has stopped: it waits for nothing.
func (l *Load) Finished() bool { return l.stopped }

// Probe gets a fresh command committed by every node, giving it again
// until it is, for up to the run's Progress.
func (l *Load) Probe(e *testbed.Env, done func()) error {
	w := e.World
	rafttest.Commit(w, l.Logs, func(i int) raftapi.Raft { return node(e.Cluster, i) }, w.Rand().Int(), l.Logs.Nodes(), w.Now()+e.Run.Progress, func(ok bool) {
		if ok {
			done()
		}
	})
	return nil
}

// Agree is the check that every index holds one command on every node
// (each node's applier checks it as it applies; this reports the first
// violation, if the run went on).
func (l *Load) Agree() testbed.Check {
	return func(e *testbed.Env) (testbed.Verdict, error) {
		e.Ops = l.Logs.MaxIndex()
		if err := l.Logs.Err(); err != nil {
			return testbed.Verdict{Problem: err.Error()}, nil
		}
		return testbed.Verdict{}, nil
	}
}

// A Group is one Raft group on the testbed, checked as the lab checks
// Raft.
type Group struct {
	// Nodes is how many nodes Make makes.
	Nodes int
	Make  raftapi.Make
	// Snapshots, if positive, is how many entries each node's applier
	// applies between the snapshots it asks its node for.
	Snapshots int
	// Gap is the most the client waits between its rounds of commands.
	Gap time.Duration
}

// Run returns the run of the group called name for seed, with Load's
// client and check (every index holds one command on every node); the
// caller gives it its network, nemesis, length and progress bound, within
// which, after healing, every node must commit a fresh command.
func (g Group) Run(name string, seed int64) (testbed.Run, error) {
	logs, err := rafttest.NewLogs(g.Nodes, g.Make, g.Snapshots)
	if err != nil {
		return testbed.Run{}, err
	}
	load := &Load{Logs: logs, Gap: g.Gap}
	return testbed.Run{
		Name: name, Seed: seed,
		Deploy:   cluster.Config{Groups: []cluster.Group{{Name: "raft", Replicas: g.Nodes, Factory: logs.Factory}}},
		Workload: load,
		Checks:   []testbed.Check{load.Agree()},
	}, nil
}
