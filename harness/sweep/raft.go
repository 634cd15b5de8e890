package sweep

import (
	"io"
	"time"

	"github.com/replab/replab/sim/simtest"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim"
)

// The shape of the Raft scenarios.
const (
	raftServers  = 5
	raftChaosFor = 30 * time.Second
	raftStartGap = 20 * time.Millisecond // the most the client waits between commands
)

// A raftSpec is a scenario on bare Raft nodes, checked as the lab's tests
// check Raft (through rafttest's harness): every server must apply the
// same command at each index, in order, and after healing all of them
// must commit one more command within 10 s.
type raftSpec struct {
	name, description string
	cfg               raft.Config
	// nemesis starts the faults of a run; it returns what stops them.
	nemesis func(w *sim.World, c *cluster.Cluster) (stop func(), err error)
}

// raftScenarios are the scenarios on bare Raft, with the lab's timing.
func raftScenarios() []Scenario {
	rc := raft.LabConfig()
	return []Scenario{
		raftSpec{name: "raft-figure8", description: "Five Raft nodes take a command every few milliseconds while each new leader, the moment it first sends entries, is cut off with one follower, up to three leaders in a row (so that a deposed leader's entries of an old term meet a later leader's, as in Raft's Figure 8), and each follower crashes and restarts right after it first accepts a new leader's entries; every index must hold one command on every node, and all must commit a last command after healing.", cfg: rc, nemesis: figure8Nemesis}.scenario(),
		raftSpec{name: "raft-votes", description: "Five Raft nodes take a command every few milliseconds while, again and again, the leader crashes and restarts and the rest are split into two sides bridged by one node, vote requests and replies are held back up to 50 ms and pre-vote replies up to an election timeout (so two candidates may campaign in one term), and every node crashes right after it answers a vote request and is back within 10 ms; every index must hold one command on every node, and all must commit a last command after healing.", cfg: rc, nemesis: votesNemesis(rc)}.scenario(),
	}
}

func (sp raftSpec) scenario() Scenario {
	return Scenario{Name: sp.name, Description: sp.description, Run: func(seed int64, _ string, trace io.Writer) Outcome {
		return sp.run(seed, trace)
	}, plant: planter(sp, raftSpec.scenario, func(p *raftSpec, b Bug) bool { return b.plantRaft(&p.cfg) })}
}

// run runs one seed. A failure of the harness's checks ends the run where
// it stands, as the outcome's problem.
func (sp raftSpec) run(seed int64, trace io.Writer) (o Outcome) {
	o.Seed = seed
	var h *rafttest.Harness
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		f, ok := r.(simtest.Stop)
		if !ok {
			panic(r) // a node's panic, say: the sweep reports it with its stack
		}
		o.Problem = string(f)
		if h != nil {
			o.FaultLog, o.Summary = h.Cluster().Log().String(), h.World().Summary()
		}
	}()
	h = rafttest.New(simtest.Stopper{}, seed, raftServers, false, false, raft.Maker(sp.cfg))
	w, c := h.World(), h.Cluster()
	w.SetTraceWriter(trace)
	stop, err := sp.nemesis(w, c)
	if err != nil {
		o.Problem = err.Error()
		return o
	}
	// The client gives a command to every node that thinks it leads, as
	// the lab's Figure 8 test does.
	stopped := false
	var client func()
	client = func() {
		if stopped {
			return
		}
		for i := range raftServers {
			if n := h.Node(i); n != nil {
				if _, _, leads := n.Start(w.Rand().Int()); leads {
					o.Ops++
				}
			}
		}
		w.After(w.RandDuration(0, raftStartGap), client)
	}
	w.After(0, client)
	w.Run(raftChaosFor)
	stopped = true
	stop()
	if err := c.Recover(); err != nil {
		o.Problem = err.Error()
		return o
	}
	o.FaultLog = c.Log().String()
	h.One(w.Rand().Int(), raftServers, true)
	o.Summary = w.Summary()
	return o
}
