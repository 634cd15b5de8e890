package frangipani

import "fmt"

// Mode is how a lock is held: shared by readers, or exclusive to one
// writer.
type Mode int

// The lock modes.
const (
	Shared Mode = iota + 1
	Exclusive
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case Shared:
		return "shared"
	case Exclusive:
		return "exclusive"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Err says whether a lock server could handle a request.
type Err string

// The errors a lock server answers with.
const (
	OK             Err = "OK"
	ErrWrongLeader Err = "ErrWrongLeader" // try another replica
	ErrBadRequest  Err = "ErrBadRequest"  // malformed; Reason says how; nothing was applied
	ErrStale       Err = "ErrStale"       // an old retry of an acquire the client has moved past
)

// OpKind names an operation on a key.
type OpKind int

// The operations.
const (
	OpGet OpKind = iota + 1
	OpPut
	OpAppend
)

// An Op is an operation on a key, which a clerk performs on its cache
// under the key's lock or the lock service performs in its log.
type Op struct {
	Kind  OpKind
	Value string // Put, Append
}

// Mode returns the lock the operation needs: shared for a Get, exclusive
// for a write, or 0 if the kind is unknown.
func (o Op) Mode() Mode {
	switch o.Kind {
	case OpGet:
		return Shared
	case OpPut, OpAppend:
		return Exclusive
	}
	return 0
}

// do performs the operation on a key's value and version, and returns
// them after it.
func (o Op) do(value string, version int64) (string, int64) {
	switch o.Kind {
	case OpPut:
		return o.Value, version + 1
	case OpAppend:
		return value + o.Value, version + 1
	}
	return value, version
}

// overflows reports whether the operation would make value longer than
// max bytes: an Append can, where the Put of a value that fits cannot.
func (o Op) overflows(value string, max int) bool {
	return o.Kind == OpAppend && len(value)+len(o.Value) > max
}

// AcquireArgs asks for key's lock in mode, for client. Seq grows with each
// acquire a client makes of a key, so that an old retry is told apart.
// With Op, whose mode must be Mode, the lock service may instead perform
// the operation itself, in its log, once the lock could be granted, and
// grant nothing: it does so when the key's last user was another client,
// so that a key going from client to client is not flushed and fetched at
// every step (see the package doc).
type AcquireArgs struct {
	Client int64
	Seq    int64
	Key    string
	Mode   Mode
	Op     *Op
}

// AcquireReply grants the lock (Grant names this holding) with the key's
// value and version as last flushed, or, with Grant 0, says that the lock
// service performed the request's Op: Value and Version are then the
// key's after it (Value for a Get only). The server answers once the lock
// is granted or the operation performed, which may wait for other holders
// to give the lock up. Contended says that other clients already wait for
// the lock: the holder serves what it needs and gives the lock up (a
// hint, as a watch's answer is).
type AcquireReply struct {
	Err       Err
	Grant     int64
	Value     string
	Version   int64
	Contended bool
	Reason    string
}

// A Held names a lock a client holds: the key and the grant.
type Held struct {
	Key   string
	Grant int64
}

// RenewArgs asks to renew the leases of the locks a client holds. Seq
// grows with each renewal a client asks for (not with each try of one),
// so that a try of a holding's first renewal, applied again, is told
// apart from a later renewal: it is granted again, as the first was (see
// the package doc).
type RenewArgs struct {
	Client int64
	Seq    int64
	Locks  []Held
}

// A Status is what became of one lock in a renewal or release.
type Status int

// The statuses.
const (
	// Renewed: the lease runs on (renewal); the value is applied (release).
	Renewed Status = iota + 1
	// Revoked: another client waits; the renewal is refused and the
	// holder should flush and release the lock.
	Revoked
	// Lost: the client no longer holds the lock (its lease ran out and the
	// lock went to another, or it was broken); writes not flushed are lost.
	Lost
)

// RenewReply has one Status per lock asked about.
type RenewReply struct {
	Err    Err
	Status []Status
}

// A Flush is a lock a client releases or flushes, with its value if it is
// dirty.
type Flush struct {
	Held
	Dirty   bool
	Value   string
	Version int64
	Keep    bool // flush the value but keep the lock (Sync)
}

// ReleaseArgs releases (or flushes) locks in one Raft command with the
// values written under them, so a value is never lost between holders.
// Client and Seq name the request for at-most-once execution.
type ReleaseArgs struct {
	Client int64
	Seq    int64
	Locks  []Flush
}

// ReleaseReply has one Status per lock: Renewed if the lock was held (its
// value is applied), Lost if not.
type ReleaseReply struct {
	Err    Err
	Status []Status
}

// WatchArgs asks the lock service's leader to say when another client
// waits for one of the locks a client holds.
type WatchArgs struct {
	Client int64
	Locks  []Held
}

// WatchReply names the locks of the watch that another client waits for
// (none if the leader answers after RenewEvery with nothing to say). It is
// a hint, from the leader's memory: the holder releases them at once
// instead of waiting for its next renewal to be refused.
type WatchReply struct {
	Err   Err
	Locks []Held
}

func wrongLeader[R interface{ err() Err }](reply any) bool { return reply.(R).err() == ErrWrongLeader }

func (r *AcquireReply) err() Err { return r.Err }
func (r *RenewReply) err() Err   { return r.Err }
func (r *ReleaseReply) err() Err { return r.Err }
func (r *WatchReply) err() Err   { return r.Err }
