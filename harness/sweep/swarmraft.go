package sweep

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/raftchaos"
)

// The bounds of swarm-raft's drawn configurations.
const (
	// swarmRaftCommands bounds the commands a seed's client gives, on
	// average (its pause is drawn long enough for the run's length), so
	// that a seed stays cheap: every node's applier keeps and checks
	// every command, and a snapshot holds every command up to it.
	swarmRaftCommands = 20_000
	// swarmRaftEvents bounds a seed's events: ten times the most that any
	// of the first 1 000 seeds fired (454 842), rounded up. A seed past it
	// fails as a storm.
	swarmRaftEvents = 5_000_000
	// swarmRaftBytes bounds the bytes of RPC arguments a seed's network
	// may carry while the client works: twelve times the most that any of
	// the first 1 000 seeds' carried (84 235 847), rounded up to a GiB. A
	// seed past it fails as a storm: with "log truncated by a stale
	// AppendEntries" planted, seed 1 fired 4 000 000 events of ever longer
	// AppendEntries in 4.5 virtual seconds, and 174 s of wall time, before
	// an event budget alone stopped it.
	swarmRaftBytes = 1 << 30
	// swarmRaftStream numbers swarm-raft's random stream.
	swarmRaftStream = 0x5352
)

// swarmRaftProgress is the progress bound after a heal for Raft timing c
// on network p: p's LongNoReply (a call that got no reply while long
// delays were on fails that long after it was sent, and until it does a
// leader, which keeps one AppendEntries with entries in flight to a
// follower, sends that follower no new entries: 7 s with labrpc's
// parameters) and ten of c's longest election timeouts (a pre-vote, a vote
// and split votes, again, on a lossy network, and the leader's first
// entries committed).
func swarmRaftProgress(c raft.Config, p labrpc.Params) time.Duration {
	return p.LongNoReply + 10*c.ElectionMax
}

// swarmRaftCommandBytes bounds the bytes of one of the client's commands
// in a snapshot or an AppendEntries (an int: a varint and a tag, or a
// term and a length).
const swarmRaftCommandBytes = 12

// swarmRaftBiggest bounds the bytes of the biggest message a leader sends
// under c in a run of length whose client pauses up to gap: a batch of
// entries, at most the whole log, or, with snapshots, a snapshot of every
// command (the client's rounds, one each per gap/2 on average).
func swarmRaftBiggest(c raft.Config, snapshots bool, length, gap time.Duration) int64 {
	whole := swarmRaftCommandBytes * 2 * int64(length/gap)
	if snapshots {
		return whole
	}
	batch := int64(c.MaxBatchBytes)
	if c.MaxBatch > 0 {
		batch = min(batch, int64(c.MaxBatch*swarmRaftCommandBytes))
	}
	return min(batch, whole)
}

// swarmRaft is bare Raft's swarm: each seed draws its own configuration.
type swarmRaft struct {
	bug *Bug // planted in every seed's configuration, if set
}

// swarmRaftScenario is the swarm as a scenario, with a bug planted on request.
func swarmRaftScenario() Scenario {
	return swarmScenario("swarm-raft", "Bare Raft nodes, the whole configuration drawn from the seed: 3-7 nodes; heartbeats every 25-200 ms, elections after 2-5 heartbeats of silence, up to 1.5-2.5 times that; PreVote and CheckQuorum each on or off; an RPC timeout or none; batches bounded to 16-1024 entries or 4 KB-1 MB, or sent only at heartbeats; snapshots every 5-1000 entries or never; a client that gives a command to every node that thinks it leads every 0-100 ms; the network's latency, jitter, loss, reordering, bandwidth and duplication; bursts of random faults of drawn kinds and rate, or none; and the targeted strikes, raft-figure8's, raft-votes', each kind on or off, or none, each with a drawn chance: a new leader cut off at its first entries with as many followers as leave the rest a bare majority, a follower crashed as it first accepts a term's entries, a node crashed right after it answers a vote, vote and pre-vote replies held back, and rounds of the leader crashed and the rest bridged; 5 s to 3 min. "+
		"After every burst everything heals and a command given after the heal must be committed within 7 s (a call that got no reply under long delays fails that late) and ten of the longest election timeouts; every index must hold one command on every node, and after the last heal every node must commit a fresh command within that bound; a seed that fires more than "+strconv.Itoa(swarmRaftEvents)+" events, or whose network carries more than "+strconv.Itoa(swarmRaftBytes>>20)+" MiB of RPC arguments while the client works, fails as a storm.",
		func(b Bug) bool { return b.plantRaft(&raft.Config{}) },
		func(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
			return swarmRaft{bug: bug}.run(seed, dir, trace)
		})
}

// run draws the seed's configuration and runs it.
func (sp swarmRaft) run(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	d := testbed.NewDraw(seed, swarmRaftStream)
	nodes := d.Int("nodes", 3, 7)
	rc := raft.LabConfig()
	rc.Heartbeat = d.Duration("heartbeat", 25*time.Millisecond, 200*time.Millisecond)
	rc.ElectionMin = time.Duration(d.Float("election min/heartbeat", 2, 5) * float64(rc.Heartbeat)).Round(time.Millisecond)
	rc.ElectionMax = time.Duration(d.Float("election max/min", 1.5, 2.5) * float64(rc.ElectionMin)).Round(time.Millisecond)
	d.Note("election timeout", fmt.Sprintf("%v-%v", rc.ElectionMin, rc.ElectionMax))
	rc.PreVote, rc.CheckQuorum = d.Chance("prevote", 0.5), d.Chance("checkquorum", 0.5)
	if d.Chance("rpc timeout set", 0.3) {
		rc.RPCTimeout = d.Duration("rpc timeout", rc.ElectionMin, 4*rc.ElectionMax)
	}
	switch d.Pick("batches", "bytes", "entries", "heartbeat only") {
	case 0:
		rc.MaxBatchBytes = d.LogInt("batch bytes", 4<<10, 1<<20)
	case 1:
		rc.MaxBatch = d.LogInt("batch entries", 16, 1024)
	case 2:
		rc.HeartbeatOnly = true
	}
	if err := rc.Validate(); err != nil {
		return testbed.Run{}, err
	}
	if sp.bug != nil {
		sp.bug.plantRaft(&rc)
	}
	snapshots := 0
	if d.Chance("snapshots", 0.5) {
		snapshots = d.LogInt("snapshot every entries", 5, 1000)
	}
	length := testbed.DrawLength(d, 5*time.Second, 30*time.Second, 3*time.Minute, 0.2)
	// The client gives a command a round on average per gap/2.
	floor := time.Duration(2 * float64(length) / swarmRaftCommands)
	gap := d.Duration("client gap", max(time.Millisecond, floor), max(100*time.Millisecond, 2*floor))

	net := testbed.DrawNetwork(d)
	if most := swarmRaftBiggest(rc, snapshots > 0, length, gap) * int64(nodes-1) * int64(time.Second) / int64(rc.ElectionMin); net.Params.Bandwidth > 0 && net.Params.Bandwidth < most {
		// A leader's biggest message to every follower must go within an
		// election timeout, or its heartbeats queue behind it, the
		// followers elect another leader, which sends it again.
		net.Params.Bandwidth = most
		d.Note("bandwidth bytes/s", fmt.Sprintf("%d (a leader's biggest message to every follower within an election timeout)", most))
	}
	progress := swarmRaftProgress(rc, *net.Params)
	var n testbed.Nemesis
	if d.Chance("random faults", 0.6) {
		var err error
		if n, err = testbed.DrawFaults(d, nodes, length, progress, net.Modes); err != nil {
			return testbed.Run{}, err
		}
	}
	strikes := drawStrikes(d, rc)
	if strikes != (raftchaos.Nemesis{}) && len(n.Schedule) == 0 {
		// Strikes alone, in bursts framed by heals and calms.
		var err error
		if n, err = (testbed.Bursts{
			Hosts: nodes, Burst: d.Duration("burst", time.Second, 20*time.Second),
			Calm: progress, Length: length, Modes: net.Modes,
		}).Generate(d.Rand()); err != nil {
			return testbed.Run{}, err
		}
	}
	if strikes != (raftchaos.Nemesis{}) {
		strikes.Messages, strikes.Heartbeat = raftchaos.RaftMessages{}, rc.Heartbeat
		n.Reactive = strikes.Start
	}
	d.Note("progress bound", progress.String())

	r, err := raftchaos.Group{Nodes: nodes, Make: raft.Maker(rc), Snapshots: snapshots, Gap: gap}.Run("swarm-raft", seed)
	if err != nil {
		return testbed.Run{}, err
	}
	r.Workload.(*raftchaos.Load).MaxBytes = swarmRaftBytes
	r.Network, r.Nemesis, r.Length, r.Progress, r.MaxEvents = net, n, length, progress, swarmRaftEvents
	r.Drawn, r.Dir, r.Trace = d.Params, dir, trace
	return r, nil
}

// drawStrikes draws the seed's targeted strikes (raftchaos.Nemesis): none;
// raft-figure8's (new leaders trapped, followers crashed as they first
// accept a term's entries); raft-votes' (votes and pre-vote replies held
// back, voters crashed, bridge rounds); or each kind on or off. Each
// chance is drawn from [0.5, 1] (below it, the strikes seldom line up as
// the scenarios' do), each hold and downtime within an election timeout.
func drawStrikes(d *testbed.Draw, rc raft.Config) raftchaos.Nemesis {
	var n raftchaos.Nemesis
	kind := d.Pick("strikes", "none", "figure 8", "votes", "each drawn")
	on := func(name string, set int) bool {
		if kind == 3 {
			return d.Chance(name, 0.5)
		}
		return kind == set
	}
	if on("trap new leaders", 1) {
		n.Traps = d.Float("trap chance", 0.5, 1)
	}
	if on("crash on entries", 1) {
		n.CrashOnEntries = d.Float("crash-on-entries chance", 0.5, 1)
	}
	if on("crash voters", 2) {
		n.CrashVoters = d.Float("crash-voter chance", 0.5, 1)
		n.VoterDowntime = d.Duration("voter downtime", time.Millisecond, rc.ElectionMin/10)
	}
	if on("hold votes", 2) {
		n.HoldVotes = d.Duration("vote hold", time.Millisecond, rc.ElectionMin/3)
		n.HoldPreVotes = d.Duration("pre-vote reply hold", time.Millisecond, rc.ElectionMin)
	}
	n.Bridges = on("bridge rounds", 2)
	return n
}
