package txntest

import (
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn"
)

// HoldLaterPrepares returns a delay rule for a deployment of shards
// shards that holds back each transaction's prepares to the shards of its
// later keys by hold: every prepare but the one to the shard of the
// transaction's first operation. It is as if the coordinator locked in
// the transaction's order, its first key's shard first, so that two
// transactions of crossing orders each hold their first key when the
// other's prepare for it arrives (paper 000's deadlock). The rule learns
// each transaction's first key from the client's request to the
// coordinators, and forgets it at the decision.
func HoldLaterPrepares(shards int, hold time.Duration) labrpc.DelayRule {
	first := map[shardtxn.Txid]int{}
	return func(m labrpc.Message) time.Duration {
		if m.IsReply {
			return 0
		}
		switch a := m.Args.(type) {
		case *shardtxn.TxnArgs:
			if len(a.Ops) > 0 {
				first[a.ID] = shardtxn.ShardOf(a.Ops[0].Key, shards)
			}
		case *shardtxn.DecideArgs:
			delete(first, a.ID)
		case *shardtxn.PrepareArgs:
			if s, ok := first[a.ID]; ok && len(a.Ops) > 0 && shardtxn.ShardOf(a.Ops[0].Key, shards) != s {
				return hold
			}
		}
		return 0
	}
}
