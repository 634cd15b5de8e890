package txntest

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn"
)

// CrossingRounds is how many transactions each client of a crossing runs.
const CrossingRounds = 40

// A Crossing is the lock-contention scenario of paper 000's deadlock:
// two clients run, CrossingRounds times each and in lock step,
// transactions that write two keys on two shards in opposite orders (3
// shards and a coordinator group on 3 shared hosts, on a LAN). A delay
// rule holds back the prepare of each transaction's second key for a time
// the seed draws (1–10 ms), so that each holds its first key when the
// other's prepare for it arrives: a deadlock every round. A client whose
// transaction aborted begins its next at once, or after a random pause
// of up to Pause. Every client must commit at least one of its
// transactions: none may starve.
type Crossing struct {
	Name   string
	Config shardtxn.Config
	Pause  time.Duration
}

// crossingStream numbers the random stream a crossing's hold is drawn
// from.
const crossingStream = 0x6372

// Run runs one seed and returns its record and how many transactions
// each client committed.
func (sp Crossing) Run(seed int64, trace io.Writer) (*testbed.Record, [2]int, error) {
	dep := Deployment{Shards: 3, Replicas: 3, Shared: true, Config: sp.Config}
	cfg, err := dep.Cluster()
	if err != nil {
		return nil, [2]int{}, err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), crossingStream))
	held := time.Millisecond + time.Duration(rng.Int64N(int64(9*time.Millisecond)))
	x := &crossing{shards: dep.Shards, held: held, pause: sp.Pause}
	rec, err := testbed.Run{
		Name: sp.Name, Seed: seed, Trace: trace, Deploy: cfg, Workload: x,
		Settle: time.Minute,
		Checks: []testbed.Check{x.check},
		Drawn:  []testbed.Param{{Name: "second-prepare-hold", Value: held.String()}},
	}.Execute()
	return rec, x.commits, err
}

// A crossing is the crossing's two clients at work.
type crossing struct {
	shards      int
	held, pause time.Duration
	commits     [2]int
	done, ended int
	err         error
}

// Start holds back second prepares and starts the two clients.
func (x *crossing) Start(e *testbed.Env) (testbed.Load, error) {
	w, c := e.World, e.Cluster
	rule := fmt.Sprintf("second keys' prepares held back %v", x.held)
	if err := c.Monkey().SetDelayRule(rule, func(m labrpc.Message) time.Duration {
		if args, ok := m.Args.(*shardtxn.PrepareArgs); ok && !m.IsReply && len(args.Ops) == 1 && args.Ops[0].Value == "second" {
			return x.held
		}
		return 0
	}); err != nil {
		return nil, err
	}
	a, b := "a", ""
	for i := 0; b == ""; i++ {
		if k := fmt.Sprintf("b%d", i); shardtxn.ShardOf(k, x.shards) != shardtxn.ShardOf(a, x.shards) {
			b = k
		}
	}
	for i := range x.commits {
		ck := Clerk(c, fmt.Sprintf("client%d", i))
		first, second := a, b
		if i == 1 {
			first, second = b, a
		}
		var round func(n int)
		round = func(n int) {
			if n == CrossingRounds || x.err != nil {
				x.done++
				return
			}
			x.err = ck.Txn([]shardtxn.Op{shardtxn.Set(first, "first"), shardtxn.Set(second, "second")}, func(out shardtxn.Outcome) {
				x.ended++
				if out.Committed {
					x.commits[i]++
					round(n + 1)
					return
				}
				w.After(w.RandDuration(0, x.pause), func() { round(n + 1) })
			})
		}
		round(0)
	}
	return x, nil
}

// Stop does nothing: each client runs its rounds to the end.
func (x *crossing) Stop() {}

// Finished reports whether both clients have run their rounds.
func (x *crossing) Finished() bool { return x.done == len(x.commits) }

// check finds a client that starved.
func (x *crossing) check(e *testbed.Env) (testbed.Verdict, error) {
	e.Ops = x.ended
	switch {
	case x.err != nil:
		return testbed.Verdict{}, x.err
	case min(x.commits[0], x.commits[1]) == 0:
		return testbed.Verdict{Problem: fmt.Sprintf("a client starved: the clients committed %d and %d of their %d transactions each", x.commits[0], x.commits[1], CrossingRounds)}, nil
	}
	return testbed.Verdict{}, nil
}
