package shardtxn

import (
	"fmt"
	"strconv"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// An Outcome is how a transaction ended: committed, with one Result per op
// asked for; or aborted, with the reason (a lock wait ran out, a condition
// failed, the transaction timed out, a transfer found too little money).
type Outcome struct {
	Committed bool
	Results   []Result
	Reason    string
}

// A Clerk is a client of the service: it sends each transaction to the
// coordinator group's leader, one at a time, and retries it there or at
// another coordinator, under the same Txid, until it learns the decision,
// so a transaction applies at most once. Everything it does runs inside
// the world: each call returns at once and its callback runs later.
//
// Given ends to the shard groups too, the clerk sends a transaction whose
// ops are all on one shard straight to that shard, which commits it in one
// step of its log: no coordinator, no two phases. Transactions across
// shards go through the coordinators.
type Clerk struct {
	ck     *rsm.Clerk
	shards []*rsm.Router
	busy   bool
}

// MakeClerk returns a clerk on host talking to the coordinators and, if
// shards is not nil, to shard group s through shards[s].
func MakeClerk(host *sim.Host, coordinators []*labrpc.ClientEnd, shards [][]*labrpc.ClientEnd) *Clerk {
	ck := &Clerk{ck: rsm.MakeClerk(host, coordinators)}
	for _, ends := range shards {
		ck.shards = append(ck.shards, rsm.MakeRouter(host, ends))
	}
	return ck
}

// Discover makes the clerk find each group's leader through the directory
// at dir (paper 003's replica manager), as a deployment whose Discovery is
// ReplicaManager asks. It panics if dir is nil.
func (ck *Clerk) Discover(dir *labrpc.ClientEnd) {
	ck.ck.Discover(rsm.Listing{Dir: dir, Group: CoordGroup})
	for s, r := range ck.shards {
		r.Discover(rsm.Listing{Dir: dir, Group: ShardGroup(s)})
	}
}

// SetTimeout sets how long the clerk waits for a coordinator's answer
// before it asks the next one (rsm.DefaultTimeout unless set). It panics
// if d is not positive.
func (ck *Clerk) SetTimeout(d time.Duration) {
	ck.ck.SetTimeout(d)
	for _, r := range ck.shards {
		r.SetTimeout(d)
	}
}

// Txn runs ops as one transaction and calls done with its outcome. Redundant
// ops are folded first (see Fold); the outcome's Results still match ops
// one for one (an op folded away has a zero Result). Bad ops are refused
// at once with an error, and nothing is sent.
func (ck *Clerk) Txn(ops []Op, done func(Outcome)) error {
	if err := checkTxn(ops); err != nil {
		return err
	}
	if ck.busy {
		return fmt.Errorf("shardtxn: a transaction while another is in progress; a clerk runs one at a time")
	}
	ck.busy = true
	kept, from := Fold(ops)
	id := Txid(ck.ck.NextSession())
	finish := func(committed bool, results []Result, reason string) {
		ck.busy = false
		out := Outcome{Committed: committed, Reason: reason}
		if committed {
			out.Results = make([]Result, len(ops))
			for i, j := range from {
				out.Results[j] = results[i]
			}
		}
		done(out)
	}
	if s, ok := ck.oneShard(kept); ok {
		ck.shards[s].Call("ShardServer.Execute", &PrepareArgs{ID: id, Ops: kept}, func() any { return &PrepareReply{} }, wrongLeader[*PrepareReply], func(r any) {
			reply := r.(*PrepareReply)
			finish(reply.Yes, reply.Results, reply.Reason)
		})
		return nil
	}
	ck.ck.Call("CoordServer.Txn", &TxnArgs{ID: id, Ops: kept}, func() any { return &TxnReply{} }, wrongLeader[*TxnReply], func(r any) {
		reply := r.(*TxnReply)
		finish(reply.Committed, reply.Results, reply.Reason)
	})
	return nil
}

// oneShard returns the shard of ops if they are all on one and the clerk
// can reach it.
func (ck *Clerk) oneShard(ops []Op) (int, bool) {
	if len(ck.shards) == 0 {
		return 0, false
	}
	s := ShardOf(ops[0].Key, len(ck.shards))
	for _, o := range ops[1:] {
		if ShardOf(o.Key, len(ck.shards)) != s {
			return 0, false
		}
	}
	return s, true
}

// Add adds n to the integer at key, as paper 000's client does: a read,
// then a conditional set on the value read, again until the set commits.
// It fails (Committed false) if the key does not hold an integer.
func (ck *Clerk) Add(key string, n int64, done func(Outcome)) error {
	return ck.update([]string{key}, func(v []int64) ([]int64, string) { return []int64{v[0] + n}, "" }, done)
}

// Xfer moves amount from one key's integer to another's, across shards:
// a read-only transaction of both, then a transaction of two conditional
// sets, again until it commits. It fails if from holds less than amount.
func (ck *Clerk) Xfer(from, to string, amount int64, done func(Outcome)) error {
	switch {
	case from == to:
		return fmt.Errorf("shardtxn: xfer from %q to itself", from)
	case amount < 0:
		return fmt.Errorf("shardtxn: xfer of a negative amount %d", amount)
	}
	return ck.update([]string{from, to}, func(v []int64) ([]int64, string) {
		if v[0] < amount {
			return nil, fmt.Sprintf("%s holds %d, less than %d", from, v[0], amount)
		}
		return []int64{v[0] - amount, v[1] + amount}, ""
	}, done)
}

// update is Update on keys' integers: it fails if a key does not hold
// one.
func (ck *Clerk) update(keys []string, next func([]int64) ([]int64, string), done func(Outcome)) error {
	return ck.Update(keys, func(read []Result) ([]string, string) {
		old := make([]int64, len(keys))
		for i, r := range read {
			v, err := strconv.ParseInt(r.Value, 10, 64)
			if !r.Found || err != nil {
				return nil, fmt.Sprintf("%s holds %q, not an integer", keys[i], r.Value)
			}
			old[i] = v
		}
		vals, reason := next(old)
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = strconv.FormatInt(v, 10)
		}
		return out, reason
	}, done)
}

// Update reads keys in a read-only transaction, asks next for their new
// values given what it read (or for a reason to give up, which ends the
// update uncommitted), and sets them in a second transaction conditionally
// on the values read (on absence, for a key not found), retrying from the read when a condition fails or a
// lock wait runs out. Add and Xfer are updates. A bad key is refused with
// an error, and nothing is sent.
func (ck *Clerk) Update(keys []string, next func(read []Result) (values []string, reason string), done func(Outcome)) error {
	reads := make([]Op, len(keys))
	for i, k := range keys {
		reads[i] = Get(k)
		if err := reads[i].check(); err != nil {
			return err
		}
	}
	var round func()
	round = func() {
		ck.mustTxn(reads, func(out Outcome) {
			if !out.Committed {
				round()
				return
			}
			vals, reason := next(out.Results)
			if reason != "" {
				done(Outcome{Reason: reason})
				return
			}
			sets := make([]Op, len(keys))
			for i, k := range keys {
				sets[i] = CSet(k, vals[i], out.Results[i].Value)
				if !out.Results[i].Found {
					sets[i] = CSetAbsent(k, vals[i])
				}
			}
			ck.mustTxn(sets, func(out Outcome) {
				if out.Committed {
					done(out)
					return
				}
				round()
			})
		})
	}
	round()
	return nil
}

// mustTxn runs ops, which were checked already.
func (ck *Clerk) mustTxn(ops []Op, done func(Outcome)) {
	if err := ck.Txn(ops, done); err != nil {
		panic(err)
	}
}
