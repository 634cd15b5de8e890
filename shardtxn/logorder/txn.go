package logorder

import "fmt"

// A Read is a value a transaction read as of its snapshot: the key, its
// value and whether it existed.
type Read struct {
	Key   string
	Value string
	Found bool
}

// A Write is a value a transaction writes.
type Write struct {
	Key   string
	Value string
}

// A Txn is a transaction as the fat client commits it (paper 004's
// in_tx_gets and in_tx_puts): the snapshot its reads were made as of, the
// values they returned, and the writes. A Txn with no reads and no writes
// is the log's barrier, which only takes a tid.
type Txn struct {
	Snapshot int
	Reads    []Read
	Writes   []Write
}

// check returns an error naming the first thing wrong with a client's
// transaction, or nil.
func (t Txn) check() error {
	switch {
	case len(t.Reads)+len(t.Writes) == 0:
		return fmt.Errorf("logorder: an empty transaction")
	case t.Snapshot < 0:
		return fmt.Errorf("logorder: snapshot tid %d is negative", t.Snapshot)
	case len(t.Reads) > MaxKeys || len(t.Writes) > MaxKeys:
		return fmt.Errorf("logorder: a transaction of %d reads and %d writes (at most %d of each)", len(t.Reads), len(t.Writes), MaxKeys)
	}
	for _, r := range t.Reads {
		if err := CheckKey(r.Key); err != nil {
			return err
		}
	}
	for _, w := range t.Writes {
		if err := CheckKey(w.Key); err != nil {
			return err
		}
		if len(w.Value) > MaxValue {
			return fmt.Errorf("logorder: put %s: value of %d bytes (at most %d)", w.Key, len(w.Value), MaxValue)
		}
	}
	return nil
}

// An Outcome is what the log made of a transaction (paper 004, §2.3).
type Outcome uint8

// The outcomes.
const (
	// Applied: every value the transaction read was still the key's value
	// as of the tid before its own, and its writes were applied.
	Applied Outcome = iota + 1
	// ConflictIgnored: a value read had changed since the snapshot; the
	// transaction was discarded, and the client may retry it.
	ConflictIgnored
	// Rejected: the transaction's snapshot was not before its own tid (a
	// snapshot from the future); nothing was applied.
	Rejected
)

var outcomeNames = [...]string{Applied: "APPLIED", ConflictIgnored: "CONFLICT_IGNORED", Rejected: "REJECTED"}

// String names the outcome as the paper does.
func (o Outcome) String() string {
	if o >= Applied && o <= Rejected {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}
