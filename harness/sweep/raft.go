package sweep

import (
	"io"
	"time"

	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/raftchaos"
)

// The shape of the Raft scenarios.
const (
	raftServers  = 5
	raftChaosFor = 30 * time.Second
	raftStartGap = 20 * time.Millisecond // the most the client waits between commands
	raftProgress = 10 * time.Second      // the lab's bound on One after healing
)

// A raftSpec is a scenario on bare Raft nodes, checked as the lab's tests
// check Raft (raftchaos.Group): every server must apply the same command
// at each index, in order, and after healing all of them must commit one
// more command within 10 s.
type raftSpec struct {
	name, description string
	cfg               raft.Config
	nemesis           raftchaos.Nemesis
}

// raftScenarios are the scenarios on bare Raft, with the lab's timing.
func raftScenarios() []Scenario {
	rc := raft.LabConfig()
	return []Scenario{
		raftSpec{name: "raft-figure8", description: "Five Raft nodes take a command every few milliseconds while each new leader, the moment it first sends entries, is cut off with one follower, up to three leaders in a row (so that a deposed leader's entries of an old term meet a later leader's, as in Raft's Figure 8), and each follower crashes and restarts right after it first accepts a new leader's entries; every index must hold one command on every node, and all must commit a last command after healing.", cfg: rc,
			nemesis: figure8Nemesis()}.scenario(),
		raftSpec{name: "raft-votes", description: "Five Raft nodes take a command every few milliseconds while, again and again, the leader crashes and restarts and the rest are split into two sides bridged by one node, vote requests and replies are held back up to 50 ms and pre-vote replies up to an election timeout (so two candidates may campaign in one term), and every node crashes right after it answers a vote request and is back within 10 ms; every index must hold one command on every node, and all must commit a last command after healing.", cfg: rc,
			nemesis: votesNemesis(rc)}.scenario(),
	}
}

// figure8Nemesis is raft-figure8's: every new leader trapped (with as many
// followers as leave the rest a bare majority), every follower crashed
// right after it first accepts a term's entries.
func figure8Nemesis() raftchaos.Nemesis {
	return raftchaos.Nemesis{Messages: raftchaos.RaftMessages{}, Traps: 1, CrashOnEntries: 1}
}

// votesNemesis is raft-votes', for Raft timing rc: votes held back up to
// 50 ms and pre-vote replies up to ElectionMin, every voter crashed right
// after it answers a vote and back within 10 ms, and bridge rounds.
func votesNemesis(rc raft.Config) raftchaos.Nemesis {
	return raftchaos.Nemesis{Messages: raftchaos.RaftMessages{}, Heartbeat: rc.Heartbeat, HoldVotes: 50 * time.Millisecond, HoldPreVotes: rc.ElectionMin, CrashVoters: 1, VoterDowntime: 10 * time.Millisecond, Bridges: true}
}

func (sp raftSpec) scenario() Scenario {
	sc := onTestbed(sp.name, sp.description, sp.build)
	sc.plant = planter(sp, raftSpec.scenario, func(p *raftSpec, b Bug) bool { return b.plantRaft(&p.cfg) })
	return sc
}

// build builds one seed's run.
func (sp raftSpec) build(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	r, err := raftchaos.Group{Nodes: raftServers, Make: raft.Maker(sp.cfg), Gap: raftStartGap}.Run(sp.name, seed)
	if err != nil {
		return testbed.Run{}, err
	}
	r.Nemesis.Reactive = sp.nemesis.Start
	r.Length, r.Progress, r.Dir, r.Trace = raftChaosFor, raftProgress, dir, trace
	return r, nil
}
