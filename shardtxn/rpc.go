package shardtxn

// Err says whether a server could handle a request.
type Err string

// The errors a server answers with.
const (
	OK             Err = "OK"
	ErrWrongLeader Err = "ErrWrongLeader" // try another replica of the group
	ErrBadRequest  Err = "ErrBadRequest"  // the request is malformed (a reply with a Reason says how); nothing was applied
)

// TxnArgs is a client's transaction, sent to the coordinator group.
type TxnArgs struct {
	ID  Txid
	Ops []Op
}

// TxnReply is the transaction's outcome.
type TxnReply struct {
	Err       Err
	Committed bool
	Results   []Result // for a commit, one per op
	Reason    string   // for an abort or ErrBadRequest, why
}

// PrepareArgs is a coordinator's prepare, sent to one shard group with the
// transaction's ops on that shard.
type PrepareArgs struct {
	ID       Txid
	Ops      []Op
	OnePhase bool
}

// PrepareReply is a cohort's vote.
type PrepareReply struct {
	Err     Err
	Yes     bool
	Results []Result // for a yes, one per op
	Reason  string   // for a no, why
}

// DecideArgs is a coordinator's decision, sent to a cohort.
type DecideArgs struct {
	ID     Txid
	Commit bool
}

// DecideReply acknowledges a decision once the cohort's log holds it.
type DecideReply struct {
	Err Err
}

// StatusArgs asks the coordinator how a transaction stands: a cohort asks
// it of a write intent in its way, or of a transaction prepared for long.
type StatusArgs struct {
	ID Txid
}

// StatusReply says how the transaction stands: pending (Decided false),
// committed, or aborted. A transaction the table no longer holds is
// answered by the Config's Presumption.
type StatusReply struct {
	Err       Err
	Decided   bool
	Committed bool
}

func wrongLeader[R interface{ err() Err }](reply any) bool { return reply.(R).err() == ErrWrongLeader }

func (r *TxnReply) err() Err     { return r.Err }
func (r *PrepareReply) err() Err { return r.Err }
func (r *DecideReply) err() Err  { return r.Err }
func (r *StatusReply) err() Err  { return r.Err }
