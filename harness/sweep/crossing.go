package sweep

import (
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/harness/services"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/sim"
)

// CrossingRounds is how many transactions each client of a crossing runs.
const CrossingRounds = 40

// A CrossingSpec is the lock-contention scenario of paper 000's deadlock:
// two clients run, CrossingRounds times each and in lock step,
// transactions that write two keys on two shards in opposite orders (3
// shards and a coordinator group on 3 shared hosts, on a LAN). A delay
// rule holds back the prepare of each transaction's second key for a time
// the seed draws (1–10 ms), so that each holds its first key when the
// other's prepare for it arrives: a deadlock every round. A client whose
// transaction aborted begins its next at once, or after a random pause
// of up to Pause. Every client must commit at least one of its
// transactions: none may starve.
type CrossingSpec struct {
	Name, Description string
	Config            shardtxn.Config
	Pause             time.Duration
}

// crossingScenario is the crossing under paper 000's lock waits.
func crossingScenario() Scenario {
	return CrossingSpec{Name: "txn-crossing", Config: TxnConfig(),
		Description: "Two clients run sharded 2PC/2PL transactions that write two keys on two shards in opposite orders, 40 each, in lock step, with each transaction's second prepare held back 1-10 ms so that the pair deadlocks every round (paper 000's deadlock); randomized lock waits must let every client commit at least once."}.Scenario()
}

// Scenario returns the spec as a scenario.
func (sp CrossingSpec) Scenario() Scenario {
	return Scenario{Name: sp.Name, Description: sp.Description, Run: func(seed int64, _ string, trace io.Writer) Outcome {
		o, _, _ := sp.Run(seed, trace)
		return o
	}, plant: planter(sp, CrossingSpec.Scenario, func(p *CrossingSpec, b Bug) bool { return b.plantShardTxn(&p.Config) })}
}

// Run runs one seed and returns its outcome, how many transactions each
// client committed, and its world (nil if the deployment cannot be built).
func (sp CrossingSpec) Run(seed int64, trace io.Writer) (Outcome, [2]int, *sim.World) {
	var commits [2]int
	dep := services.ShardTxn{Shards: 3, Replicas: 3, Shared: true, Config: sp.Config}
	c, o := txnCluster(seed, trace, dep.Cluster)
	if c == nil {
		return o, commits, nil
	}
	w := c.World()
	held := w.RandDuration(time.Millisecond, 10*time.Millisecond)
	o.Drawn = []testbed.Param{{Name: "second-prepare-hold", Value: held.String()}}
	rule := fmt.Sprintf("second keys' prepares held back %v", held)
	if err := c.Monkey().SetDelayRule(rule, func(m labrpc.Message) time.Duration {
		if args, ok := m.Args.(*shardtxn.PrepareArgs); ok && !m.IsReply && len(args.Ops) == 1 && args.Ops[0].Value == "second" {
			return held
		}
		return 0
	}); err != nil {
		o.Problem = err.Error()
		return o, commits, w
	}
	a, b := "a", ""
	for i := 0; b == ""; i++ {
		if k := fmt.Sprintf("b%d", i); shardtxn.ShardOf(k, dep.Shards) != shardtxn.ShardOf(a, dep.Shards) {
			b = k
		}
	}
	done, ended := 0, 0
	var err error
	for i := range commits {
		ck := services.ShardTxnClerk(c, fmt.Sprintf("client%d", i))
		first, second := a, b
		if i == 1 {
			first, second = b, a
		}
		var round func(n int)
		round = func(n int) {
			if n == CrossingRounds || err != nil {
				done++
				return
			}
			err = ck.Txn([]shardtxn.Op{shardtxn.Set(first, "first"), shardtxn.Set(second, "second")}, func(out shardtxn.Outcome) {
				ended++
				if out.Committed {
					commits[i]++
					round(n + 1)
					return
				}
				w.After(w.RandDuration(0, sp.Pause), func() { round(n + 1) })
			})
		}
		round(0)
	}
	finished := w.RunUntil(func() bool { return done == len(commits) }, time.Minute)
	o.Ops, o.FaultLog, o.Summary = ended, c.Log().String(), w.Summary()
	switch {
	case err != nil:
		o.Problem = err.Error()
	case !finished:
		o.Problem = fmt.Sprintf("the clients did not finish their %d rounds within a minute", CrossingRounds)
	case min(commits[0], commits[1]) == 0:
		o.Problem = fmt.Sprintf("a client starved: the clients committed %d and %d of their %d transactions each", commits[0], commits[1], CrossingRounds)
	}
	return o, commits, w
}
