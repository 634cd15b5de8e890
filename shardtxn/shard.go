package shardtxn

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/replab/replab/rsm"
)

// A vote is a cohort's answer to a prepare.
type vote uint8

const (
	voteYes      vote = iota + 1 // locks taken, conditions hold, writes staged
	voteNo                       // a condition failed, or the transaction was decided already
	voteConflict                 // a key is locked by another transaction: try again later
)

// A shardCmd is what a shard puts in its log: exactly one of its fields.
type shardCmd struct {
	Prepare *prepareCmd
	Decide  *decideCmd
	Execute *prepareCmd // a transaction on this shard alone: prepared and committed at once
	Refuse  *refuseCmd  // such a transaction given up on a conflict
}

// A refuseCmd makes final the refusal of a transaction on this shard alone
// that met a conflict it could not wait out or resolve: its vote is its
// outcome, so an attempt still under way (a client's retry of the same
// transaction) must not run it later.
type refuseCmd struct {
	ID     Txid
	Reason string
}

// A prepareCmd asks a shard to take a transaction's locks, check its
// conditions and stage its writes (2PC's prepare, 2PL's growing phase).
type prepareCmd struct {
	ID  Txid
	Ops []Op // the transaction's ops on this shard
	// OnePhase reads the committed state without taking or waiting for
	// locks, and leaves nothing behind: paper 000's read-only optimisation.
	OnePhase bool
}

// A decideCmd tells a shard the coordinator's decision.
type decideCmd struct {
	ID     Txid
	Commit bool
}

// A shardResult is the outcome of a shardCmd.
type shardResult struct {
	Vote     vote
	Results  []Result // voteYes: the ops' results, in order
	Reason   string   // voteNo: why
	Conflict string   // voteConflict: the key locked
	Holder   Txid     // voteConflict: a transaction holding it
}

// A lock is the 2PL lock on one key: one writer or any number of readers.
type lock struct {
	Writer  Txid
	Readers []Txid
}

func (l *lock) free() bool { return l.Writer == (Txid{}) && len(l.Readers) == 0 }

// A staged write is a value a prepared transaction will install on commit.
type staged struct {
	Key   string
	Value string
	Del   bool
}

// A prepared transaction holds its locks and staged writes until decided.
type prepared struct {
	Keys    []string // the keys it locked
	Writes  []staged
	Results []Result
}

// shard is a shard group's state machine: the data, the lock table, the
// prepared transactions, and per client the newest transaction decided
// here, so that a prepare delayed past its transaction's decision is
// refused instead of taking locks nobody will release.
type shard struct {
	data     map[string]string
	locks    map[string]*lock
	prepared map[Txid]*prepared
	decided  map[int64]last // client -> newest transaction decided here
	bugs     bugs
	snaps    rsm.GobSnapshots[shardState]

	// released, if set, hears of keys whose locks were released (the
	// server wakes the prepares waiting for them).
	released func(keys []string)
	// installed, if set, hears of each write a commit installs, in the
	// order the shard applies them.
	installed func(key, value string, del bool)
	// watch, if set, hears of each two-phase transaction the shard
	// prepares (votes yes for) and of each decision it applies to one it
	// prepared.
	watch Watcher
}

// A Watcher hears what a shard's state machine applies of two-phase
// transactions, as it applies it: an observer outside the protocol (a
// search's predicates) judges lock safety and atomic decisions by it.
type Watcher struct {
	// Prepared hears of a transaction the shard voted yes for, with its
	// ops on this shard: the keys whose locks it takes (shared for a read,
	// exclusive for a write) until its decision.
	Prepared func(id Txid, ops []Op)
	// Decided hears of a decision applied to a transaction the shard had
	// prepared: commit or abort.
	Decided func(id Txid, commit bool)
}

// last is a client's newest transaction decided at a shard: its Seq, and
// for a transaction executed here alone, its result, for a retry.
type last struct {
	Seq    int64
	Result *shardResult
}

func newShard(b bugs) *shard {
	return &shard{data: map[string]string{}, locks: map[string]*lock{}, prepared: map[Txid]*prepared{}, decided: map[int64]last{}, bugs: b, snaps: rsm.NewGobSnapshots[shardState]()}
}

// Apply executes a shardCmd (an rsm.StateMachine).
func (s *shard) Apply(cmd any) any {
	c := cmd.(shardCmd)
	switch {
	case c.Prepare != nil:
		return s.prepare(c.Prepare)
	case c.Decide != nil:
		s.decide(c.Decide)
	case c.Execute != nil:
		return s.execute(c.Execute)
	case c.Refuse != nil:
		return s.refuse(c.Refuse)
	}
	return shardResult{Vote: voteYes}
}

// known returns c's result if applying c would change nothing and say
// what any later application would, and so can be answered without a new
// log entry: a prepare of a transaction prepared here (yes, with its
// results) or decided here already (no); a decision applied here, or one
// whose transaction can no longer prepare here (its client's newest
// decided transaction here is as new, and it holds nothing); a
// transaction on this shard alone that ended.
//
// This is safe from any replica's state, even a deposed leader's or one
// behind the log: the state holds only what committed entries made of it,
// which every later leader's log holds too, and each of these facts, once
// true, stays so in every later state. A prepared transaction leaves
// prepared only by its decision, which the coordinator took after the
// vote (its yes stands: the vote it repeats was cast through the log); a
// client's newest decided transaction only grows, so a transaction
// refused for it is refused for ever; an ended one-shard transaction's
// result is final. A OnePhase prepare reads the data, which moves on: it
// is never answered so.
func (s *shard) known(c shardCmd) (shardResult, bool) {
	switch {
	case c.Prepare != nil && !c.Prepare.OnePhase:
		id := c.Prepare.ID
		if p, ok := s.prepared[id]; ok {
			return shardResult{Vote: voteYes, Results: p.Results}, true
		}
		if s.decided[id.Client].Seq >= id.Seq {
			return shardResult{Vote: voteNo, Reason: "decided already"}, true
		}
	case c.Decide != nil:
		id := c.Decide.ID
		if _, ok := s.prepared[id]; !ok && s.decided[id.Client].Seq >= id.Seq {
			return shardResult{Vote: voteYes}, true
		}
	case c.Execute != nil:
		return s.ended(c.Execute.ID)
	}
	return shardResult{}, false
}

func (s *shard) prepare(c *prepareCmd) shardResult {
	if c.OnePhase {
		results, _ := s.run(c.Ops, nil)
		return shardResult{Vote: voteYes, Results: results}
	}
	if res, ok := s.known(shardCmd{Prepare: c}); ok {
		return res
	}
	if res, ok := s.conflict(c.ID, c.Ops); ok {
		return res
	}
	p := &prepared{}
	for _, o := range c.Ops {
		s.lock(o.Key, c.ID, o.writes(), p)
	}
	var failed string
	if p.Results, failed = s.run(c.Ops, &p.Writes); failed != "" {
		s.release(c.ID, p.Keys)
		return shardResult{Vote: voteNo, Reason: failed}
	}
	if s.bugs.earlyReadUnlock {
		shared := slices.DeleteFunc(slices.Clone(p.Keys), func(k string) bool { return s.locks[k].Writer == c.ID })
		p.Keys = slices.DeleteFunc(p.Keys, func(k string) bool { return slices.Contains(shared, k) })
		s.release(c.ID, shared)
	}
	s.prepared[c.ID] = p
	if s.watch.Prepared != nil {
		s.watch.Prepared(c.ID, c.Ops)
	}
	return shardResult{Vote: voteYes, Results: p.Results}
}

// conflict returns a conflict vote if another transaction holds a key of
// ops that id needs: the first such key, and a holder of its lock (the
// writer, whose staged write is its write intent, or a reader).
func (s *shard) conflict(id Txid, ops []Op) (shardResult, bool) {
	for _, o := range ops {
		l := s.locks[o.Key]
		if l == nil || s.grantable(l, id, o.writes()) {
			continue
		}
		holder := l.Writer
		if holder == (Txid{}) || holder == id {
			i := slices.IndexFunc(l.Readers, func(r Txid) bool { return r != id })
			holder = l.Readers[i]
		}
		return shardResult{Vote: voteConflict, Conflict: o.Key, Holder: holder}, true
	}
	return shardResult{}, false
}

// grantable reports whether id may take l, shared or exclusive.
func (s *shard) grantable(l *lock, id Txid, exclusive bool) bool {
	if l.Writer != (Txid{}) && l.Writer != id {
		return false
	}
	if !exclusive {
		return true
	}
	for _, r := range l.Readers {
		if r != id {
			return false
		}
	}
	return true
}

// lock takes key's lock for id, recording the key in p once.
func (s *shard) lock(key string, id Txid, exclusive bool, p *prepared) {
	l := s.locks[key]
	if l == nil {
		l = &lock{}
		s.locks[key] = l
	}
	if !slices.Contains(p.Keys, key) {
		p.Keys = append(p.Keys, key)
	}
	switch {
	case exclusive:
		l.Writer = id
		l.Readers = slices.DeleteFunc(l.Readers, func(r Txid) bool { return r == id })
	case l.Writer != id && !slices.Contains(l.Readers, id):
		l.Readers = append(l.Readers, id)
	}
}

// release drops id's locks on keys and tells the server which are free.
func (s *shard) release(id Txid, keys []string) {
	for _, k := range keys {
		l := s.locks[k]
		if l.Writer == id {
			l.Writer = Txid{}
		}
		l.Readers = slices.DeleteFunc(l.Readers, func(r Txid) bool { return r == id })
		if l.free() {
			delete(s.locks, k)
		}
	}
	if s.released != nil && len(keys) > 0 {
		s.released(keys)
	}
}

// run computes the ops' results against the data and the ops' own earlier
// writes, staging the writes in *w (nil: a read-only run that stages
// nothing). A CSet's result Value is "ok" if its condition holds. It
// returns, besides, why the transaction cannot commit, or "": the first
// CSet whose condition fails, or Append that would make a list longer
// than MaxValue.
func (s *shard) run(ops []Op, w *[]staged) (results []Result, failed string) {
	view := map[string]*string{} // this transaction's writes so far; nil: deleted
	get := func(k string) (string, bool) {
		if v, ok := view[k]; ok {
			if v == nil {
				return "", false
			}
			return *v, true
		}
		v, ok := s.data[k]
		return v, ok
	}
	put := func(k string, v *string) {
		view[k] = v
		if w != nil {
			st := staged{Key: k, Del: v == nil}
			if v != nil {
				st.Value = *v
			}
			*w = append(*w, st)
		}
	}
	results = make([]Result, len(ops))
	fail := func(why string) {
		if failed == "" {
			failed = why
		}
	}
	for i, o := range ops {
		v, found := get(o.Key)
		switch o.Kind {
		case OpGet:
			results[i] = Result{Value: v, Found: found}
		case OpRead:
			if found {
				results[i] = Result{Found: true, List: strings.Fields(v)}
			}
		case OpSet:
			put(o.Key, &o.Value)
		case OpDel:
			put(o.Key, nil)
		case OpCSet:
			if (o.Absent && !found) || (!o.Absent && found && v == o.Expect) {
				results[i].Value = "ok"
				put(o.Key, &o.Value)
			} else {
				fail("condition failed: " + o.String())
			}
		case OpAppend:
			nv := o.Value
			if found && v != "" {
				nv = v + " " + o.Value
			}
			if len(nv) > MaxValue {
				fail(fmt.Sprintf("append %s: the list would hold %d bytes (at most %d)", o.Key, len(nv), MaxValue))
			}
			put(o.Key, &nv)
		}
	}
	return results, failed
}

func (s *shard) decide(c *decideCmd) {
	if c.ID.Seq > s.decided[c.ID.Client].Seq {
		s.decided[c.ID.Client] = last{Seq: c.ID.Seq}
	}
	p, ok := s.prepared[c.ID]
	if !ok {
		return
	}
	delete(s.prepared, c.ID)
	if s.watch.Decided != nil {
		s.watch.Decided(c.ID, c.Commit)
	}
	if c.Commit {
		s.install(p.Writes)
	}
	s.release(c.ID, p.Keys)
}

// execute runs a transaction whose ops are all on this shard in one step,
// as a prepare and a commit at once: it waits for no decision, so it
// takes no locks, but it must find none of its keys locked by another.
// A retry gets the first run's result.
func (s *shard) execute(c *prepareCmd) shardResult {
	if res, ok := s.ended(c.ID); ok {
		return res
	}
	if res, ok := s.conflict(c.ID, c.Ops); ok {
		return res
	}
	var writes []staged
	res := shardResult{Vote: voteYes}
	var failed string
	if res.Results, failed = s.run(c.Ops, &writes); failed != "" {
		res = shardResult{Vote: voteNo, Reason: failed}
	} else {
		s.install(writes)
	}
	s.decided[c.ID.Client] = last{Seq: c.ID.Seq, Result: &res}
	return res
}

// ended returns the outcome of id, a transaction on this shard alone, if
// it ran or was refused already: its result, or a no if its client has
// gone on to a later one.
func (s *shard) ended(id Txid) (shardResult, bool) {
	l := s.decided[id.Client]
	switch {
	case l.Seq < id.Seq:
		return shardResult{}, false
	case l.Seq == id.Seq && l.Result != nil:
		return *l.Result, true
	}
	return shardResult{Vote: voteNo, Reason: "decided already"}, true
}

// refuse records a one-shard transaction's refusal, unless it ended
// already; either way it returns the transaction's outcome.
func (s *shard) refuse(c *refuseCmd) shardResult {
	if res, ok := s.ended(c.ID); ok {
		return res
	}
	res := shardResult{Vote: voteNo, Reason: c.Reason}
	s.decided[c.ID.Client] = last{Seq: c.ID.Seq, Result: &res}
	return res
}

// install applies a committed transaction's writes.
func (s *shard) install(writes []staged) {
	for _, w := range writes {
		if w.Del {
			delete(s.data, w.Key)
		} else {
			s.data[w.Key] = w.Value
		}
		if s.installed != nil {
			s.installed(w.Key, w.Value, w.Del)
		}
	}
}

// shardState is a shard's state as a snapshot holds it: maps as sorted
// slices, so that equal states give equal bytes.
type shardState struct {
	Data     []staged
	Prepared []preparedEntry
	Decided  []clientLast
}

type clientLast struct {
	Client int64
	L      last
}

type preparedEntry struct {
	ID Txid
	P  prepared
	// Locks: the mode each of P.Keys is held in, true for exclusive.
	Exclusive []bool
}

// Snapshot encodes the shard's state (an rsm.StateMachine).
func (s *shard) Snapshot() []byte {
	var st shardState
	for _, k := range slices.Sorted(maps.Keys(s.data)) {
		st.Data = append(st.Data, staged{Key: k, Value: s.data[k]})
	}
	ids := slices.SortedFunc(maps.Keys(s.prepared), func(a, b Txid) int { return compareTxid(a, b) })
	for _, id := range ids {
		p := s.prepared[id]
		e := preparedEntry{ID: id, P: *p}
		for _, k := range p.Keys {
			e.Exclusive = append(e.Exclusive, s.locks[k].Writer == id)
		}
		st.Prepared = append(st.Prepared, e)
	}
	for _, c := range slices.Sorted(maps.Keys(s.decided)) {
		st.Decided = append(st.Decided, clientLast{c, s.decided[c]})
	}
	b, err := s.snaps.Encode(st)
	if err != nil {
		panic("shardtxn: encoding a shard's snapshot: " + err.Error())
	}
	return b
}

// Restore replaces the state with a snapshot's (an rsm.StateMachine).
func (s *shard) Restore(snap []byte) error {
	*s = shard{data: map[string]string{}, locks: map[string]*lock{}, prepared: map[Txid]*prepared{}, decided: map[int64]last{},
		bugs: s.bugs, released: s.released, installed: s.installed}
	if len(snap) == 0 {
		return nil
	}
	var st shardState
	if err := gob.NewDecoder(bytes.NewReader(snap)).Decode(&st); err != nil {
		return err
	}
	for _, d := range st.Data {
		s.data[d.Key] = d.Value
	}
	for _, e := range st.Prepared {
		p := e.P
		s.prepared[e.ID] = &p
		keys := p.Keys
		p.Keys = nil
		for i, k := range keys {
			s.lock(k, e.ID, e.Exclusive[i], &p)
		}
	}
	for _, d := range st.Decided {
		s.decided[d.Client] = d.L
	}
	return nil
}

func compareTxid(a, b Txid) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}
