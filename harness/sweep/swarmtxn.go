package sweep

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"github.com/replab/replab/shardtxn/txntest"
)

// The bounds of the transaction swarms' drawn configurations.
const (
	// swarmTxnOps bounds the transactions a seed's clients can issue (their
	// count, the run's length and their pauses are drawn within it), so
	// that a seed stays cheap and its history quick to check.
	swarmTxnOps = 4000
	// swarmTxnPerKey bounds contention: the clients times the keys of a
	// transaction (a transfer's accounts, half the most micro-ops of a
	// list transaction, every account for a read of the balances, in
	// proportion to reads) are at most this many a key: more list keys,
	// or fewer bank clients, if need be. Beyond it shardtxn thrashes:
	// before the bound, swarm-txn's seed 18 (32 clients of transfers of
	// 3 moves over 16 accounts, three in four operations reads of every
	// balance, on an unreliable network) committed nothing in 53 s, every
	// transaction giving up a lock wait; on a LAN it passed.
	swarmTxnPerKey = 4
	// swarmTxnProgress is shardtxn's progress bound after a heal: three of
	// its transaction timeouts at their longest, 5 s (one for the transactions the burst
	// stranded to be aborted and their locks released, one for a
	// transaction begun after the heal, and one for the elections, the
	// clerks' and coordinators' retries and the transaction that begins
	// again after a lock wait gave up).
	swarmTxnProgress = 15 * time.Second
	// swarmTxnEvents fails a seed whose world fires more events (a storm):
	// about ten times the most of the 10 000 seeds swept at 776ba47
	// (1 089 460, seed 6665).
	swarmTxnEvents = 11_000_000
	// swarmLogOrderProgress is logorder's: the 20 s within which its
	// failover scenario asks a restarted node to have caught up.
	swarmLogOrderProgress = logordertest.FailoverCheck
	// swarmLogOrderEvents bounds a swarm-logorder seed's events: ten times
	// the most that any of its first 1 000 seeds fired (303 961), rounded
	// up. A seed past it fails as a storm.
	swarmLogOrderEvents = 3_100_000
	// swarmTxnBackoff is the first pause of a client after an abort,
	// doubling with each abort in a row, as shardtxn's doc asks of
	// callers under write intents.
	swarmTxnBackoff = 10 * time.Millisecond
	// swarmTxnLockStep is the chance that a seed of lists draws its
	// workload in lock step (drawLockStep).
	swarmTxnLockStep = 0.5
	// swarmTxnAimed is the chance that a seed not in lock step draws a
	// nemesis aimed between the coordinators and the shards.
	swarmTxnAimed = 0.5
	// starvationRounds bounds, in rounds of a deadlock for each client,
	// how long a client that keeps trying may go without a commit while
	// the network is healed (see runSwarmTxn): randomized waits break a
	// deadlock but queue no one, so a client may lose each round to any of
	// the others. At 20 rounds in all, seed 6944 (six clients in lock step
	// over four keys) starved a client for 3 s with the correct code.
	starvationRounds = 20
	// abortWays is how many ways of a message a deadlock's first victim's
	// abort takes to free its locks: its no vote to the coordinator, the
	// decision through the coordinators' log (two), to the shard, and
	// through the shard's log (two).
	abortWays = 6
)

// swarmScenario is a swarm scenario: run draws each seed's configuration
// and runs it, with bug planted if set; ours says whether a bug is of the
// service it runs.
func swarmScenario(name, description string, ours func(Bug) bool, build func(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error)) Scenario {
	var with func(bug *Bug) Scenario
	with = func(bug *Bug) Scenario {
		sc := onTestbed(name, description, func(seed int64, dir string, trace io.Writer) (testbed.Run, error) {
			return build(bug, seed, dir, trace)
		})
		sc.plant = func(b Bug) (Scenario, bool) {
			if !ours(b) {
				return Scenario{}, false
			}
			return with(&b), true
		}
		return sc
	}
	return with(nil)
}

// The swarms' random streams.
const (
	swarmTxnStream      = 0x5354
	swarmLogOrderStream = 0x534c
)

// A txnShape is a swarm seed's clients and workload.
type txnShape struct {
	clients int
	length  time.Duration
	think   time.Duration
	load    *testbed.Txn
}

// drawTxnShape draws clients (1–50), the run's length (5–30 s, or 30 s–3
// min on 10 % of seeds) and the workload: bank transfers (of 1–3 moves
// between 2–16 accounts) and reads of every balance on 40 % of seeds, list
// appends and reads of 1–6 micro-ops over 1–32 keys on the others, reads
// a drawn share of them, contention bounded by swarmTxnPerKey, each client
// pausing up to a drawn think time long enough to keep the seed within
// swarmTxnOps, and backing off after an abort.
func drawTxnShape(d *testbed.Draw) txnShape {
	s := txnShape{clients: d.LogInt("clients", 1, 50)}
	s.length = testbed.DrawLength(d, 5*time.Second, 30*time.Second, 3*time.Minute, 0.1)
	think := drawThink(d, s.clients, s.length, time.Millisecond, 100*time.Millisecond)
	s.think = think
	s.load = &testbed.Txn{Clients: s.clients, Balance: txntest.Balance, Backoff: swarmTxnBackoff}
	// atLeast raises a count of keys to what keeps the clients times the
	// keys of a transaction within swarmTxnPerKey a key, noting it.
	atLeast := func(name string, keys, perTxn int) int {
		if k := (s.clients*perTxn + swarmTxnPerKey - 1) / swarmTxnPerKey; keys < k {
			d.Note(name, fmt.Sprintf("%d (at most %d clients' keys a key)", k, swarmTxnPerKey))
			return k
		}
		return keys
	}
	if d.Chance("bank", 0.4) {
		accounts := d.Int("accounts", 2, 16)
		moves := d.Int("moves", 1, min(3, accounts/2))
		reads := d.Float("reads", 0, 1)
		// A read of every balance touches every account: more accounts
		// would not lower the contention, fewer clients do.
		if most := max(1, int(swarmTxnPerKey/(reads+float64(2*moves)/float64(accounts)))); s.clients > most {
			s.clients, s.load.Clients = most, most
			d.Note("clients", fmt.Sprintf("%d (at most %d clients' keys a key)", most, swarmTxnPerKey))
		}
		s.load.Bank = &workload.BankSpec{
			Accounts: accounts, Moves: moves,
			MaxAmount: int64(d.LogInt("max amount", 1, 100)), Reads: reads, Think: think,
		}
		return s
	}
	keys, ops := d.LogInt("keys", 1, 32), d.Int("max ops", 1, 6)
	s.load.Lists = workload.ListSpec{Keys: atLeast("keys", keys, (ops+1)/2), MaxOps: ops, Reads: d.Float("reads", 0, 1), Think: think}
	return s
}

// drawThink draws a think time from [lo, hi], both raised, if need be,
// to what keeps clients' transactions over length within swarmTxnOps.
func drawThink(d *testbed.Draw, clients int, length, lo, hi time.Duration) time.Duration {
	floor := time.Duration(2 * float64(clients) * float64(length) / swarmTxnOps)
	return d.Duration("think", max(lo, floor), max(hi, 2*floor))
}

// drawLockStep draws, over shape, a workload in which two transactions
// can cross again and again (paper 000's deadlock, round after round),
// and returns its network: a LAN, on which a deadlock's rounds keep time,
// on most such seeds one of fixed latency (no jitter: a jitter of a tenth
// of the latency shifted a pair's rounds apart within a second or so).
// A few clients run short transactions over a few keys, each running an
// aborted transaction again until it commits: at once under lock waits
// (waits, whose randomized lengths are what should break a deadlock),
// after its back-off pause under write intents, which abort both of a
// crossing pair and ask their callers to back off (with no pause, such
// pairs crossed again and again, and clients starved, on seeds 11 and 14
// of a first version of these draws). On most such seeds
// each transaction's prepares to the shards of its later keys are held
// back (txntest.HoldLaterPrepares), as if its coordinator locked in its
// order, so that transactions of crossing orders deadlock. It returns the
// hold (0: none).
func drawLockStep(d *testbed.Draw, shape *txnShape, shards int, waits bool) (testbed.Network, time.Duration) {
	shape.clients = d.Int("clients", 2, 6)
	shape.think = drawThink(d, shape.clients, shape.length, 10*time.Microsecond, 2*time.Millisecond)
	shape.load.Clients, shape.load.Retry = shape.clients, true
	if waits {
		shape.load.Backoff = 0
		d.Note("backoff", "none (lock waits)")
	}
	shape.load.Lists = workload.ListSpec{Keys: d.Int("keys", 2, 6), MaxOps: d.Int("max ops", 2, 3), Reads: d.Float("reads", 0, 0.5), Think: shape.think}
	jitter := 1.0
	if d.Chance("fixed latency", 0.7) {
		jitter = 0
	}
	net := testbed.DrawLAN(d, jitter)
	var hold time.Duration
	if d.Chance("later prepares held back", 0.9) {
		hold = d.Duration("prepare hold", time.Millisecond, 10*time.Millisecond)
		net.Rule, net.RuleName = txntest.HoldLaterPrepares(shards, hold), fmt.Sprintf("later keys' prepares held back %v", hold)
	}
	return net, hold
}

// swarmTxnScenario is shardtxn's swarm: each seed draws its own
// configuration.
func swarmTxnScenario() Scenario {
	return swarmScenario("swarm-txn", "Sharded 2PC/2PL transactions, the whole configuration drawn from the seed: 1-8 shard groups and a coordinator group of 3-7 replicas each, on hosts shared by a replica of each group or each on its own; paper 000's or paper 003's conflicts (lock waits or write intents) and presumption (abort or commit), leaders found by redirects or the replica manager; a transaction timeout of 1-5 s; lock waits of twice the longest way a message takes (at least 20 ms); snapshots at 4-64 KB of Raft state or never; 1-50 clients of list appends and reads over 1-32 keys or bank transfers and reads of every balance, at most 4 clients' keys of a transaction a key (more keys, or for the bank fewer clients), each client backing off after an abort; or, on "+fmt.Sprintf("%.0f %%", 100*swarmTxnLockStep)+" of the seeds of lists, a lock step: 2-6 clients of 2-3 micro-ops over 2-6 keys, each running an aborted transaction again until it commits (at once under lock waits, whose lock wait then covers a victim's abort twice over), on a LAN, most often of fixed latency, with each transaction's prepares to the shards of its later keys held back 1-10 ms on most seeds (as if its coordinator locked in its order: transactions of crossing orders deadlock), calm on half of them; the network's latency, jitter, loss, reordering, bandwidth and duplication; on "+fmt.Sprintf("%.0f %%", 100*swarmTxnAimed)+" of the other seeds, every replica on a host of its own, one of the nemeses aimed between the coordinators and the shards (on half of them the coordinators' leader cut off with the shards from the other coordinators, else the coordinators cut off from the shards or a shard leader from every coordinator one way, 1-8 s at a time), else bursts of random faults of drawn kinds and rate, or none; 5 s to 3 min. "+
		"After every burst everything heals and a transaction begun after the heal must commit within 15 s (three transaction timeouts; with an aimed nemesis, only after the last heal); after the last, every lock and the coordinator's table must drain within 30 s and a fresh client's read commit within 15 s. While the network is healed (in the 15 s after a heal, after the last heal, or all along with no faults), from two transaction timeouts after the heal on, a client that keeps trying must commit within "+fmt.Sprint(starvationRounds)+" rounds for each client of a deadlock broken by randomized lock waits (two of the longest lock waits, a victim's abort, the hold, two think times and the longest back-off pause, and a transaction timeout on an unreliable network), or it starves: a stall that names it. A seed that fires more than "+strconv.Itoa(swarmTxnEvents)+" events fails as a storm. Txncheck then checks strict serializability, or every read the bank's total.",
		func(b Bug) bool { return b.plantShardTxn(&shardtxn.Config{}) }, runSwarmTxn)
}

// runSwarmTxn draws the seed's configuration, with bug planted if set,
// and runs it.
func runSwarmTxn(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	d := testbed.NewDraw(seed, swarmTxnStream)
	dep := txntest.Deployment{Shards: d.Int("shards", 1, 8), Replicas: d.Int("replicas", 3, 7), Shared: d.Chance("shared hosts", 0.5)}
	variants := txntest.Variants()
	v := variants[d.Pick("variant", "2pl", "intents", "prc", "acid")]
	dep.Config = v.With(shardtxn.DefaultConfig())
	if d.Chance("replica manager", 0.3) {
		dep.Config.Discovery = shardtxn.ReplicaManager
	}
	dep.Config.TxnTimeout = d.Duration("transaction timeout", time.Second, swarmTxnProgress/3)
	dep.Config.RSM.MaxRaftState = -1
	if d.Chance("snapshots", 0.7) {
		dep.Config.RSM.MaxRaftState = d.LogInt("snapshot at bytes", 4<<10, 64<<10)
	}
	shape := drawTxnShape(d)
	drawn := len(d.Params)
	net := testbed.DrawNetwork(d)
	var hold time.Duration
	lockStep := shape.load.Bank == nil && d.Chance("lock step", swarmTxnLockStep)
	if lockStep {
		// The network drawn above is not the seed's: its draws are left
		// out of what the seed prints (drawn after it, the lock step
		// leaves the other seeds' draws as they were).
		d.Params = append(d.Params[:drawn], d.Params[len(d.Params)-1])
		net, hold = drawLockStep(d, &shape, dep.Shards, dep.Config.Conflicts == shardtxn.LockWaits)
	}
	// Raft's Bandwidth is left unset: with a leader's batches cut to a
	// share of half a heartbeat and one batch in flight a follower, a slow
	// link carries the coordinators' log slower than many clients' retries
	// grow it (seeds 919 and 1427, 153 and 262 KB/s, 24 and 48 clients: the
	// clients' last transactions did not end within the settle), and
	// without it no seed of the thousands run stalled.
	// A lock wait shorter than a message's way gives up on every holder:
	// twice the longest way, at least shardtxn's default.
	if w := 2 * net.LongestWay(); w > dep.Config.LockWait {
		dep.Config.LockWait = w.Round(time.Millisecond)
		d.Note("lock wait", dep.Config.LockWait.String())
	}
	var n testbed.Nemesis
	// A seed in lock step is aimed at no moment, and calm on half of
	// them: its deadlocks' rounds are watched while the network is healed.
	switch {
	case lockStep && d.Chance("calm", 0.5):
	case !lockStep && d.Chance("aimed nemesis", swarmTxnAimed):
		// Each strikes between the coordinators and the shards, which it
		// needs on hosts of their own. The coordinator leader's outages,
		// which leave it deciding what it cannot replicate, on half.
		dep.Shared = false
		aimed := 0
		if d.Rand().Float64() >= 0.5 {
			aimed = 1 + d.Rand().IntN(2)
		}
		d.Note("aimed", []string{"leader outages", "outages", "one-way cuts"}[aimed])
		switch aimed {
		case 0:
			n.Reactive = txntest.Outages(true)
		case 1:
			n.Reactive = txntest.Outages(false)
		default:
			n.Reactive = func(e *testbed.Env) (func(), error) { return cutNemesis(e.World, e.Cluster) }
		}
	default:
		var err error
		if n, err = testbed.DrawFaults(d, dep.Hosts(), shape.length, swarmTxnProgress, net.Modes); err != nil {
			return testbed.Run{}, err
		}
	}
	// A deadlock's first victim frees its locks after its abort has gone
	// its way (abortWays): a lock wait shorter than that gives up on every
	// holder whatever it drew, which randomizing cannot break.
	if w := 2 * abortWays * net.LongestWay(); shape.load.Retry && w > dep.Config.LockWait {
		dep.Config.LockWait = w.Round(time.Millisecond)
		d.Note("lock wait", fmt.Sprintf("%v (%d ways of a victim's abort, twice)", dep.Config.LockWait, abortWays))
	}
	if bug != nil {
		bug.plantShardTxn(&dep.Config)
	}
	// A client that keeps trying must commit within starvationRounds
	// rounds for each client of a deadlock broken by randomized lock
	// waits: the longest
	// lock wait twice, a victim's abort on its way, the hold, the client's
	// think time twice and its longest back-off pause, and on an
	// unreliable network a transaction timeout (a lost prepare's
	// transaction is aborted that late); counted from two transaction
	// timeouts after a heal, one for the transactions the faults stranded
	// to be aborted and one for elections and retries.
	round := 2*2*dep.Config.LockWait + abortWays*net.LongestWay() + hold + 2*shape.think + shape.load.Backoff<<8
	if net.Modes.Unreliable {
		round += dep.Config.TxnTimeout
	}
	round = round.Round(time.Millisecond)
	rounds := starvationRounds * shape.clients
	starve, recovery := time.Duration(rounds)*round, 2*dep.Config.TxnTimeout
	d.Note("progress bound", swarmTxnProgress.String())
	d.Note("starvation bound", fmt.Sprintf("%v (%d rounds of %v), from %v after a heal", starve, rounds, round, recovery))
	r, err := dep.Run("swarm-txn", seed, shape.load)
	if err != nil {
		return testbed.Run{}, err
	}
	r.Network, r.Nemesis, r.Length, r.Progress, r.Starve, r.StarveAfter = net, n, shape.length, swarmTxnProgress, starve, recovery
	r.MaxEvents = swarmTxnEvents
	r.Drawn, r.Dir, r.Trace = d.Params, dir, trace
	return r, nil
}

// lengthen replaces the shape's drawn length with length (a scenario's
// own timeline), lengthening the clients' pauses after each transaction
// as much, so that the clients still issue at most swarmTxnOps
// transactions. Before, swarm-logorder's failover seeds kept the pauses
// drawn for their drawn length over 150 s: seed 2303 (23 clients, drawn
// 10.9 s, pausing 167 ms) logged 13 000 transactions of ever longer lists
// in 50 s and snapshotted every tid, and ran for hours; seed 70 filled its
// log's link until a restarted node could not catch up.
func (s *txnShape) lengthen(d *testbed.Draw, length time.Duration) {
	think := &s.load.Lists.Think
	if s.load.Bank != nil {
		think = &s.load.Bank.Think
	}
	if length > s.length {
		*think = time.Duration(float64(*think) * float64(length) / float64(s.length))
		d.Note("think", think.String())
	}
	s.length = length
	d.Note("length", length.String())
}

// swarmLogOrderScenario is logorder's swarm: each seed draws its own
// configuration.
func swarmLogOrderScenario() Scenario {
	return swarmScenario("swarm-logorder", "Log-ordered optimistic transactions (paper 004), the whole configuration drawn from the seed: 3-7 nodes, a replication factor of 1 to all of them, 16-10 000 tids of versions kept, snapshots every 1-1024 tids or never; 1-50 workers of list appends and reads over 1-32 keys or bank transfers and reads of every balance, at most 4 workers' keys of a transaction a key (more keys, or for the bank fewer workers), each backing off after an abort; the network's latency, jitter, loss, reordering, bandwidth (which bounds the log's batches: Raft's Bandwidth) and duplication; bursts of random faults of drawn kinds and rate, or none, for 5 s to 3 min, or, on 5 % of seeds, paper 004's 150 s failover (the log's leader and a follower killed in turn, each down 2-25 s; the clients' pauses lengthened as much as the run, so that they issue no more transactions). "+
		"After every burst everything heals and a transaction begun after the heal must commit within 20 s; after every failover restart the node must catch up within 20 s while the others go further; after the last heal every node must process the whole log within 30 s and a fresh client's read commit within 20 s; a seed that fires more than "+strconv.Itoa(swarmLogOrderEvents)+" events fails as a storm; every node's outcomes must agree, and txncheck must find the lists strictly serializable, or every read add up to the bank's total.",
		func(b Bug) bool { return b.plantLogOrder(&logorder.Config{}) }, runSwarmLogOrder)
}

// runSwarmLogOrder draws the seed's configuration, with bug planted if
// set, and runs it.
func runSwarmLogOrder(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
	d := testbed.NewDraw(seed, swarmLogOrderStream)
	cfg := logorder.DefaultConfig()
	nodes := d.Int("nodes", 3, 7)
	cfg.Layout = logorder.DefaultLayout(nodes, d.Int("replication factor", 1, nodes))
	cfg.Versions = d.LogInt("versions kept", 16, 10_000)
	cfg.SnapshotEvery = 0
	if d.Chance("snapshots", 0.8) {
		cfg.SnapshotEvery = d.LogInt("snapshot every tids", 1, 1024)
	}
	if bug != nil {
		bug.plantLogOrder(&cfg)
	}
	shape := drawTxnShape(d)
	net := testbed.DrawNetwork(d)
	// The log's leader bounds its batches to what the link sends: on a
	// slow link one of Raft's 1 MiB takes longer than an election
	// timeout, and a node back far behind was sent its gap again by
	// leader after leader, each deposed before it arrived (seeds 60, 70
	// and 497).
	cfg.RSM.Raft.Bandwidth = net.Params.Bandwidth
	failover := d.Chance("failover", 0.05)
	var n testbed.Nemesis
	if failover {
		shape.lengthen(d, logordertest.FailoverLength)
	} else {
		var err error
		if n, err = testbed.DrawFaults(d, nodes, shape.length, swarmLogOrderProgress, net.Modes); err != nil {
			return testbed.Run{}, err
		}
	}
	d.Note("progress bound", swarmLogOrderProgress.String())
	r, err := logordertest.Run("swarm-logorder", seed, cfg, shape.load)
	if err != nil {
		return testbed.Run{}, fmt.Errorf("swarm-logorder: %w", err)
	}
	if failover {
		logordertest.WithFailover(&r)
	}
	r.Network, r.Nemesis.Schedule, r.Nemesis.Heals, r.Length, r.Progress, r.MaxEvents = net, n.Schedule, n.Heals, shape.length, swarmLogOrderProgress, swarmLogOrderEvents
	r.Drawn, r.Dir, r.Trace = d.Params, dir, trace
	return r, nil
}
