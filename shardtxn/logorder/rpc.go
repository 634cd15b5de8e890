package logorder

import "github.com/replab/replab/rsm"

// Err says whether a server could handle a request.
type Err string

// The errors a server answers with.
const (
	OK             Err = "OK"
	ErrWrongLeader Err = "ErrWrongLeader" // commits go to the log's leader: try another server
	ErrBehind      Err = "ErrBehind"      // the server has not applied the tid asked for: try another
	ErrTooOld      Err = "ErrTooOld"      // the versions as of the tid asked for are collected
	ErrBadRequest  Err = "ErrBadRequest"  // the request is malformed; Reason says how; nothing was applied
)

// RecentArgs asks a server for its most recent tid, at least Min (paper
// 004's getRecentTid, with begin's min_tid).
type RecentArgs struct{ Min int }

// RecentReply is the server's most recent tid. Far, with ErrBehind, says
// the server is catching up, too far behind to be asked again soon.
type RecentReply struct {
	Err    Err
	Tid    int
	Reason string
	Far    bool
}

// GetArgs asks an owner for keys' values as of Tid (paper 004's getAsOf,
// for several keys at once); Latest asks for its newest values instead,
// as of whatever it has applied (only the planted bug asks so).
type GetArgs struct {
	Tid    int
	Keys   []string
	Latest bool
}

// GetReply holds the values, one per key asked for. Far, with ErrBehind,
// says the server is catching up, too far behind to be asked again soon.
type GetReply struct {
	Err    Err
	Values []Read
	Reason string
	Far    bool
}

// farBehind tells a caller to avoid the server for a while (see nodes).
func (r *RecentReply) farBehind() bool { return r.Err == ErrBehind && r.Far }
func (r *GetReply) farBehind() bool    { return r.Err == ErrBehind && r.Far }

// CommitArgs is a client's transaction, sent to the log's leader under a
// session that names it for every retry.
type CommitArgs struct {
	Session rsm.Session
	Txn     Txn
}

// CommitReply is the transaction's tid and outcome.
type CommitReply struct {
	Err     Err
	Tid     int
	Outcome Outcome
	Reason  string
}
