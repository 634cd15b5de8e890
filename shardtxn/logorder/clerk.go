package logorder

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// ErrSnapshotTooOld says a transaction's snapshot is older than the
// versions the servers keep: begin it again.
var ErrSnapshotTooOld = errors.New("logorder: the snapshot is older than the versions the servers keep; begin again")

// The kinds of a Commit's error, for errors.Is: the transaction was
// rejected, and nothing of it applied; or it was logged, and its outcome
// can no longer be learned (it may have been applied).
var (
	ErrRejected       = errors.New("logorder: the transaction was rejected; nothing was applied")
	ErrOutcomeUnknown = errors.New("logorder: the transaction's outcome is unknown; it may have been applied")
)

// A commitError is a Commit's error: its message, and its kind.
type commitError struct {
	kind error
	msg  string
}

func (e *commitError) Error() string { return e.msg }
func (e *commitError) Unwrap() error { return e.kind }

// A Clerk is paper 004's fat client: it begins transactions at a snapshot
// tid it asks a random server for, reads from a random owner of each key
// as of that snapshot (avoiding, for a while, a server that did not
// answer in time), buffers writes, and commits a transaction's reads
// (with the values read) and writes through the log's leader, under a
// session, so a commit retried elsewhere is logged once. Everything runs
// inside the world: each call returns at once and its callback runs later.
type Clerk struct {
	host          *sim.Host
	inc           uint64 // the host's incarnation: the clerk dies with it
	nodes         *nodes // for Begin and Get
	all           []int  // every node's index
	layout        Layout
	ck            *rsm.Clerk
	last          int
	snapshotReads bool
}

// MakeClerk returns a clerk on host talking to servers, node i at
// servers[i], placed as layout says. The clerk dies with its host: once
// the host is killed, its calls end with an error.
func MakeClerk(host *sim.Host, servers []*labrpc.ClientEnd, layout Layout) (*Clerk, error) {
	switch {
	case host == nil:
		return nil, fmt.Errorf("logorder: MakeClerk: a nil host")
	case !host.Alive():
		return nil, fmt.Errorf("logorder: MakeClerk: host %s is dead", host.Name())
	}
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	if len(servers) != layout.Nodes {
		return nil, fmt.Errorf("logorder: a clerk with %d servers for a layout of %d nodes", len(servers), layout.Nodes)
	}
	if i := slices.Index(servers, nil); i >= 0 {
		return nil, fmt.Errorf("logorder: MakeClerk: the end to node %d is nil", i)
	}
	all := make([]int, len(servers))
	for i := range all {
		all[i] = i
	}
	return &Clerk{host: host, inc: host.Incarnation(), nodes: newNodes(host, servers, rsm.DefaultTimeout), all: all, layout: layout, ck: rsm.MakeClerk(host, servers)}, nil
}

// SetTimeout sets how long the clerk waits for a server's answer before
// it asks another (rsm.DefaultTimeout unless set). It panics if d is not
// positive or longer than MaxSetting.
func (ck *Clerk) SetTimeout(d time.Duration) {
	if d > MaxSetting {
		panic(fmt.Sprintf("logorder: clerk timeout %v is longer than a day (MaxSetting)", d))
	}
	ck.ck.SetTimeout(d)
	ck.nodes.timeout = d
}

// SetSnapshotReads makes a read-only transaction's Commit answer at once,
// Applied at its snapshot tid, without the log: its reads are a
// consistent snapshot, but the snapshot may be older than transactions
// already committed (serializable, not strictly). Off, read-only
// transactions are validated through the log like any other.
func (ck *Clerk) SetSnapshotReads(on bool) { ck.snapshotReads = on }

// LastTid returns the largest tid the clerk has seen a commit or a
// snapshot at: Begin(ck.LastTid()) reads the clerk's own writes.
func (ck *Clerk) LastTid() int { return ck.last }

// A Tx is a transaction under way at a snapshot tid.
type Tx struct {
	ck        *Clerk
	committed bool // Commit was called: the Tx takes no more calls
	snapshot  int
	reads     []Read  // the first read of each key, as of the snapshot
	writes    []Write // the newest value put to each key, in order of first put
}

// Begin starts a transaction at the most recent tid of a random server
// that has processed minTid (paper 004's begin(min_tid)), and calls done
// with it, or with an error if minTid is negative or in the future.
//
// Begin panics if done is nil.
func (ck *Clerk) Begin(minTid int, done func(*Tx, error)) {
	if done == nil {
		panic("logorder: Begin with a nil callback")
	}
	if err := ck.usable(); err != nil {
		done(nil, err)
		return
	}
	ck.nodes.ask(ck.all, "Server.Recent", &RecentArgs{Min: minTid}, func() any { return &RecentReply{} }, func(r any) bool {
		reply := r.(*RecentReply)
		switch reply.Err {
		case OK:
			ck.last = max(ck.last, reply.Tid)
			done(&Tx{ck: ck, snapshot: reply.Tid}, nil)
		case ErrBadRequest:
			done(nil, errors.New(reply.Reason))
		default:
			return false
		}
		return true
	})
}

// Snapshot returns the tid the transaction reads as of.
func (tx *Tx) Snapshot() int { return tx.snapshot }

// Get reads key as of the snapshot, or as the transaction last put it,
// and calls done with its value and whether it exists (or with
// ErrSnapshotTooOld). A bad key is refused with an error, and nothing is
// sent. done may run before Get returns.
func (tx *Tx) Get(key string, done func(value string, found bool, err error)) error {
	if err := tx.usable("Get"); err != nil {
		return err
	}
	if done == nil {
		return fmt.Errorf("logorder: Get %s with a nil callback", key)
	}
	if err := CheckKey(key); err != nil {
		return err
	}
	for _, w := range tx.writes {
		if w.Key == key {
			done(w.Value, true, nil)
			return nil
		}
	}
	for _, r := range tx.reads {
		if r.Key == key {
			done(r.Value, r.Found, nil)
			return nil
		}
	}
	args := &GetArgs{Tid: tx.snapshot, Keys: []string{key}}
	tx.ck.nodes.ask(tx.ck.layout.Owners(key), "Server.Get", args, func() any { return &GetReply{} }, func(r any) bool {
		reply := r.(*GetReply)
		switch reply.Err {
		case OK:
			v := reply.Values[0]
			tx.reads = append(tx.reads, v)
			done(v.Value, v.Found, nil)
		case ErrTooOld:
			done("", false, ErrSnapshotTooOld)
		case ErrBadRequest:
			done("", false, errors.New(reply.Reason))
		default:
			return false
		}
		return true
	})
	return nil
}

// Put buffers a write of value to key, for Commit. A bad key or value is
// refused with an error.
func (tx *Tx) Put(key, value string) error {
	if err := tx.usable("Put"); err != nil {
		return err
	}
	if err := CheckKey(key); err != nil {
		return err
	}
	if len(value) > MaxValue {
		return fmt.Errorf("logorder: put %s: value of %d bytes (at most %d)", key, len(value), MaxValue)
	}
	for i, w := range tx.writes {
		if w.Key == key {
			tx.writes[i].Value = value
			return nil
		}
	}
	tx.writes = append(tx.writes, Write{Key: key, Value: value})
	return nil
}

// Commit submits the transaction's reads and writes to the log and calls
// done with its tid and outcome: Applied, or ConflictIgnored if a value it
// read changed after its snapshot (begin again to retry). An empty
// transaction, or one the log rejects, ends with an error that is
// ErrRejected, and nothing is applied; a commit whose outcome the leader
// can no longer work out (it was logged, then retried after the versions
// it read were collected) ends with one that is ErrOutcomeUnknown. A
// transaction is sent to the log once: a Commit, Get or Put after a
// Commit that sent it is refused. Commit panics if done is nil.
func (tx *Tx) Commit(done func(tid int, o Outcome, err error)) {
	if done == nil {
		panic("logorder: Commit with a nil callback")
	}
	if err := tx.usable("Commit"); err != nil {
		done(0, 0, &commitError{ErrRejected, err.Error()})
		return
	}
	t := Txn{Snapshot: tx.snapshot, Reads: tx.reads, Writes: tx.writes}
	if err := t.check(); err != nil {
		done(0, 0, &commitError{ErrRejected, err.Error()})
		return
	}
	tx.committed = true
	if len(t.Writes) == 0 && tx.ck.snapshotReads {
		done(tx.snapshot, Applied, nil)
		return
	}
	args := &CommitArgs{Session: tx.ck.ck.NextSession(), Txn: t}
	wrong := func(r any) bool { return r.(*CommitReply).Err == ErrWrongLeader }
	tx.ck.ck.Call("Server.Commit", args, func() any { return &CommitReply{} }, wrong, func(r any) {
		reply := r.(*CommitReply)
		if reply.Err == OK {
			tx.ck.last = max(tx.ck.last, reply.Tid)
		}
		done(reply.Tid, reply.Outcome, commitErr(reply))
	})
}

// usable returns an error if the clerk cannot make calls: its host was
// killed since the clerk was made (the clerk died with it).
func (ck *Clerk) usable() error {
	if ck.host.Incarnation() != ck.inc {
		return fmt.Errorf("logorder: a clerk on host %s, which was killed since; make a new clerk", ck.host.Name())
	}
	return nil
}

// usable returns an error if the transaction cannot take a call of what:
// it was committed, or its clerk cannot make calls.
func (tx *Tx) usable(what string) error {
	if tx.committed {
		return fmt.Errorf("logorder: %s on a transaction at snapshot %d that was committed already", what, tx.snapshot)
	}
	return tx.ck.usable()
}

// commitErr returns the error a commit's reply stands for, or nil.
func commitErr(reply *CommitReply) error {
	switch reply.Err {
	case OK:
		return nil
	case ErrTooOld:
		return &commitError{ErrOutcomeUnknown, fmt.Sprintf("logorder: the outcome of tid %d is no longer known: its versions are collected", reply.Tid)}
	default:
		return &commitError{ErrRejected, reply.Reason}
	}
}
