package shardtxn

import (
	"fmt"
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
	// Unheard is set when a clerk that does not retry (NoRetry) gave up
	// without hearing the decision: the transaction is counted failed,
	// though it may have committed.
	Unheard bool
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
// shards go through the coordinators; so does every transaction of a
// clerk given no ends to the shards, as paper 000's clients sent theirs
// (under Config.Relay the coordinator leader passes one on one shard to
// that shard).
type Clerk struct {
	ck     *rsm.Clerk
	shards []*rsm.Router
	host   *sim.Host
	inc    uint64 // the host's incarnation: the clerk dies with it
	busy   string // the call in progress ("a transaction", "an update"), or ""
	once   bool   // NoRetry's: one try per transaction
}

// MakeClerk returns a clerk on host talking to the coordinators and, if
// shards is not nil, to shard group s through shards[s]. It refuses a nil
// or dead host, no coordinators, a shard group with no ends, and a nil
// end.
func MakeClerk(host *sim.Host, coordinators []*labrpc.ClientEnd, shards [][]*labrpc.ClientEnd) (*Clerk, error) {
	if err := checkHost("MakeClerk", host); err != nil {
		return nil, err
	}
	if err := checkEnds("MakeClerk", coordinators, "the coordinator group"); err != nil {
		return nil, err
	}
	for s, ends := range shards {
		if err := checkEnds("MakeClerk", ends, fmt.Sprintf("shard group %d", s)); err != nil {
			return nil, err
		}
	}
	ck := &Clerk{ck: rsm.MakeClerk(host, coordinators), host: host, inc: host.Incarnation()}
	for _, ends := range shards {
		ck.shards = append(ck.shards, rsm.MakeRouter(host, ends))
	}
	return ck, nil
}

// ID returns the clerk's client ID: the Client of its transactions'
// Txids, which its errors name.
func (ck *Clerk) ID() int64 { return ck.ck.ID() }

// Discover makes the clerk find each group's leader through the directory
// at dir (paper 003's replica manager), as a deployment whose Discovery is
// ReplicaManager asks. It refuses a nil dir.
func (ck *Clerk) Discover(dir *labrpc.ClientEnd) error {
	if err := ck.usable("Discover", false); err != nil {
		return err
	}
	if dir == nil {
		return fmt.Errorf("shardtxn: clerk %d: Discover with a nil end to the directory", ck.ck.ID())
	}
	ck.ck.Discover(rsm.Listing{Dir: dir, Group: CoordGroup})
	for s, r := range ck.shards {
		r.Discover(rsm.Listing{Dir: dir, Group: ShardGroup(s)})
	}
	return nil
}

// SetTimeout sets how long the clerk waits for a coordinator's answer
// before it asks the next one (rsm.DefaultTimeout unless set). It refuses
// a d that is not positive or is longer than MaxSetting.
func (ck *Clerk) SetTimeout(d time.Duration) error {
	if err := ck.usable("SetTimeout", false); err != nil {
		return err
	}
	if err := checkSetting("timeout", d); err != nil {
		return fmt.Errorf("shardtxn: clerk %d: %w", ck.ck.ID(), err)
	}
	ck.ck.SetTimeout(d)
	for _, r := range ck.shards {
		r.SetTimeout(d)
	}
	return nil
}

// NoRetry makes the clerk paper 003's client, which did not retry: it
// sends each transaction once, to the coordinator it believes leads (or
// that the directory names), and a try that fails (a wrong-leader answer,
// a lost message, no answer within the timeout) ends the transaction with
// an Unheard outcome, counted failed: the clerk never sends it again under
// its Txid, and cannot tell whether it committed. The next transaction
// asks the directory (or tries the next coordinator) afresh. A one-shard
// transaction, sent straight to its shard, gets one try too.
func (ck *Clerk) NoRetry() error {
	if err := ck.usable("NoRetry", false); err != nil {
		return err
	}
	ck.once = true
	return nil
}

// usable returns an error if the clerk cannot take a call of what: its
// host was killed since the clerk was made (the clerk died with it), the
// call has no callback, or another call is in progress.
func (ck *Clerk) usable(what string, nilDone bool) error {
	switch {
	case !ck.host.Alive() || ck.host.Incarnation() != ck.inc:
		return fmt.Errorf("shardtxn: clerk %d: %s after its host %s was killed; make a new clerk", ck.ck.ID(), what, ck.host.Name())
	case nilDone:
		return fmt.Errorf("shardtxn: clerk %d: %s with a nil callback", ck.ck.ID(), what)
	case ck.busy != "":
		return fmt.Errorf("shardtxn: clerk %d: %s while %s is in progress; a clerk runs one at a time", ck.ck.ID(), what, ck.busy)
	}
	return nil
}

// Txn runs ops as one transaction and calls done with its outcome. Redundant
// ops are folded first (see Fold); the outcome's Results still match ops
// one for one (an op folded away has a zero Result). Bad ops, a nil done,
// a call while another is in progress and a clerk whose host was killed
// are refused at once with an error, and nothing is sent.
func (ck *Clerk) Txn(ops []Op, done func(Outcome)) error {
	if err := ck.usable("Txn", done == nil); err != nil {
		return err
	}
	if err := checkTxn(ops); err != nil {
		return err
	}
	ck.busy = "a transaction"
	ck.run(ops, func(out Outcome) {
		ck.busy = ""
		done(out)
	})
	return nil
}

// run runs ops, which were checked already, as one transaction.
func (ck *Clerk) run(ops []Op, done func(Outcome)) {
	kept, from := Fold(ops)
	id := Txid(ck.ck.NextSession())
	finish := func(committed bool, results []Result, reason string) {
		out := Outcome{Committed: committed, Reason: reason}
		if committed {
			out.Results = make([]Result, len(ops))
			for i, j := range from {
				out.Results[j] = results[i]
			}
		}
		done(out)
	}
	unheard := func() {
		done(Outcome{Unheard: true, Reason: "no decision heard: the one try failed and the clerk does not retry"})
	}
	if s, ok := ck.oneShard(kept); ok {
		call := ck.shards[s].Call
		if ck.once {
			call = ck.shards[s].CallOnce
		}
		call("ShardServer.Execute", &PrepareArgs{ID: id, Ops: kept}, func() any { return &PrepareReply{} }, wrongLeader[*PrepareReply], func(r any) {
			if r == nil {
				unheard()
				return
			}
			reply := r.(*PrepareReply)
			finish(reply.Yes, reply.Results, reply.Reason)
		})
		return
	}
	call := ck.ck.Call
	if ck.once {
		call = ck.ck.CallOnce
	}
	call("CoordServer.Txn", &TxnArgs{ID: id, Ops: kept}, func() any { return &TxnReply{} }, wrongLeader[*TxnReply], func(r any) {
		if r == nil {
			unheard()
			return
		}
		reply := r.(*TxnReply)
		finish(reply.Committed, reply.Results, reply.Reason)
	})
}

// oneShard returns the shard of ops if they are all on one and the clerk
// can reach it.
func (ck *Clerk) oneShard(ops []Op) (int, bool) {
	if len(ck.shards) == 0 {
		return 0, false
	}
	return oneShard(ops, len(ck.shards))
}
