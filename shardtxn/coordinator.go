package shardtxn

import (
	"bytes"
	"encoding/gob"
	"maps"
	"slices"
	"time"

	"github.com/replab/replab/rsm"
)

// A state is where a transaction is in two-phase commit.
type state uint8

const (
	preparing state = iota + 1 // prepares sent; no decision yet
	committed                  // decided commit
	aborted                    // decided abort
)

// A coordCmd is what the coordinator group puts in its log: one of Begin,
// Decide or Finish (decisions and finishes are batched: many transactions
// share an entry), or a Barrier a new leader commits before it recovers.
// Status, which changes nothing, asks how a transaction stands (a read).
type coordCmd struct {
	Begin   *beginCmd
	Decide  []decision
	Finish  []Txid
	Barrier bool
	Status  *Txid
}

// A beginCmd enters a transaction in the table.
type beginCmd struct {
	ID  Txid
	At  time.Duration // the leader's clock when it began
	Ops []Op
}

// A decision is the coordinator's verdict on one transaction.
type decision struct {
	ID      Txid
	Commit  bool
	Results []Result // for a commit, the ops' results in the order of the ops
	Reason  string   // for an abort, why
}

// A coordResult is a transaction's state after a coordCmd.
type coordResult struct {
	State   state
	Results []Result
	Reason  string
	Known   bool // false: the table had no such transaction, nor a newer one of its client
}

// A txn is an entry of the transaction table.
type txn struct {
	ID      Txid
	At      time.Duration
	Ops     []Op
	Shards  []int // the participants, ascending
	State   state
	Results []Result
	Reason  string
}

// An outcome is the last decided transaction of a client, kept after its
// entry is finished so that a late retry learns how it ended.
type outcome struct {
	Seq     int64
	State   state
	Results []Result
	Reason  string
}

// coordinator is the coordinator group's state machine: the transaction
// table (txid -> state, participants, decision) of the transactions not
// yet finished (every cohort has the decision), and each client's last
// outcome. Both stay bounded: an entry leaves the table when finished, and
// a client has one outcome.
//
// Under PresumedCommit a commit leaves the table with its decision, and
// an abort stays until finished, so that a missing entry means committed.
type coordinator struct {
	shards   int
	presume  Presumption
	txns     map[Txid]*txn
	outcomes map[int64]outcome
	bugs     bugs
	snaps    rsm.GobSnapshots[coordState]
}

func newCoordinator(shards int, presume Presumption, b bugs) *coordinator {
	return &coordinator{shards: shards, presume: presume, txns: map[Txid]*txn{}, outcomes: map[int64]outcome{}, bugs: b, snaps: rsm.NewGobSnapshots[coordState]()}
}

// Apply executes a coordCmd (an rsm.StateMachine). For Begin it returns
// the transaction's state; for Decide, the state of each transaction
// decided, in order ([]coordResult).
func (c *coordinator) Apply(cmd any) any {
	cc := cmd.(coordCmd)
	switch {
	case cc.Begin != nil:
		return c.begin(cc.Begin)
	case cc.Decide != nil:
		out := make([]coordResult, len(cc.Decide))
		for i, d := range cc.Decide {
			out[i] = c.decide(d)
		}
		return out
	case cc.Status != nil:
		return coordResult{State: c.status(*cc.Status), Known: true}
	case cc.Finish != nil:
		for _, id := range cc.Finish {
			if t := c.txns[id]; t != nil && t.State != preparing {
				delete(c.txns, id)
			}
		}
	}
	return coordResult{}
}

// lookup returns what the table knows of id.
func (c *coordinator) lookup(id Txid) coordResult {
	if t := c.txns[id]; t != nil {
		return coordResult{State: t.State, Results: t.Results, Reason: t.Reason, Known: true}
	}
	o, ok := c.outcomes[id.Client]
	switch {
	case ok && o.Seq == id.Seq:
		return coordResult{State: o.State, Results: o.Results, Reason: o.Reason, Known: true}
	case ok && o.Seq > id.Seq:
		return coordResult{State: aborted, Reason: "superseded by the client's next transaction", Known: true}
	}
	return coordResult{}
}

func (c *coordinator) begin(b *beginCmd) coordResult {
	if r := c.lookup(b.ID); r.Known {
		return r
	}
	t := &txn{ID: b.ID, At: b.At, Ops: b.Ops, State: preparing}
	for _, o := range b.Ops {
		if s := ShardOf(o.Key, c.shards); !slices.Contains(t.Shards, s) {
			t.Shards = append(t.Shards, s)
		}
	}
	slices.Sort(t.Shards)
	c.txns[b.ID] = t
	return coordResult{State: preparing, Known: true}
}

func (c *coordinator) decide(d decision) coordResult {
	t := c.txns[d.ID]
	if t == nil || t.State != preparing {
		return c.lookup(d.ID)
	}
	t.State, t.Results, t.Reason = aborted, nil, d.Reason
	if d.Commit {
		t.State, t.Results, t.Reason = committed, d.Results, ""
	}
	if o, ok := c.outcomes[d.ID.Client]; !ok || o.Seq < d.ID.Seq {
		c.outcomes[d.ID.Client] = outcome{Seq: d.ID.Seq, State: t.State, Results: t.Results, Reason: t.Reason}
	}
	if c.presume == PresumedCommit && (d.Commit || c.bugs.forgetAborts) {
		delete(c.txns, d.ID) // the commit record deletes the entry: no acknowledgement round
	}
	return coordResult{State: t.State, Results: t.Results, Reason: t.Reason, Known: true}
}

// status is how the table answers a cohort asking about id: its entry's
// state, or without one, the presumption. The clients' outcomes are not
// asked: they answer a client's retry, and the protocol must not lean on
// them. No cohort asks about a transaction that was never begun (its
// prepares follow its begin entry), nor about one finished (every cohort
// has its decision), so the presumption is only ever asked of the
// transactions it covers: under PresumedAbort, none (committed entries
// stay until finished); under PresumedCommit, the committed ones.
func (c *coordinator) status(id Txid) state {
	if t := c.txns[id]; t != nil {
		return t.State
	}
	if c.presume == PresumedCommit {
		return committed
	}
	return aborted
}

// pending returns the unfinished transactions, in Txid order.
func (c *coordinator) pending() []*txn {
	ids := slices.SortedFunc(maps.Keys(c.txns), compareTxid)
	out := make([]*txn, len(ids))
	for i, id := range ids {
		out[i] = c.txns[id]
	}
	return out
}

// coordState is the coordinator's state as a snapshot holds it.
type coordState struct {
	Txns     []txn
	Outcomes []clientOutcome
}

type clientOutcome struct {
	Client int64
	O      outcome
}

// Snapshot encodes the table (an rsm.StateMachine).
func (c *coordinator) Snapshot() []byte {
	var st coordState
	for _, t := range c.pending() {
		st.Txns = append(st.Txns, *t)
	}
	for _, cl := range slices.Sorted(maps.Keys(c.outcomes)) {
		st.Outcomes = append(st.Outcomes, clientOutcome{cl, c.outcomes[cl]})
	}
	b, err := c.snaps.Encode(st)
	if err != nil {
		panic("shardtxn: encoding the coordinator's snapshot: " + err.Error())
	}
	return b
}

// Restore replaces the table with a snapshot's (an rsm.StateMachine).
func (c *coordinator) Restore(snap []byte) error {
	c.txns, c.outcomes = map[Txid]*txn{}, map[int64]outcome{}
	if len(snap) == 0 {
		return nil
	}
	var st coordState
	if err := gob.NewDecoder(bytes.NewReader(snap)).Decode(&st); err != nil {
		return err
	}
	for _, t := range st.Txns {
		c.txns[t.ID] = &t
	}
	for _, o := range st.Outcomes {
		c.outcomes[o.Client] = o.O
	}
	return nil
}
