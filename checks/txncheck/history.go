package txncheck

import (
	"fmt"
	"strings"
	"time"
)

// An OpType says what a micro-operation does.
type OpType uint8

// The micro-operations.
const (
	OpRead   OpType = iota // read a key: the whole list, or the register's value
	OpAppend               // append Value to the key's list
	OpWrite                // set the key's register to Value
)

// An Op is one micro-operation of a transaction. A key holds either a list
// (appended to) or a register (written), never both; every value appended or
// written to a key must be unique to that key, so that a read names the
// transactions it saw.
type Op struct {
	Type  OpType
	Key   int
	Value int // OpAppend, OpWrite: the value appended or written
	// Values is what an OpRead returned: the list, or for a register nil
	// (never written) or its one value; nil until the read completes. A
	// nil read (the key does not exist) and a read of the empty list are
	// distinct: nil and a non-nil empty slice (Read(k) and
	// Read(k, []int{}...)). For a list both are its initial state.
	Values []int
}

// Append returns the micro-op that appends value to key's list.
func Append(key, value int) Op { return Op{Type: OpAppend, Key: key, Value: value} }

// Write returns the micro-op that sets key's register to value.
func Write(key, value int) Op { return Op{Type: OpWrite, Key: key, Value: value} }

// Read returns the micro-op that reads key; values, if any, are what it
// returned (a list's elements in order, or a register's one value). With
// no values it is a nil read; Read(key, list...) keeps list as it is, nil
// or empty.
func Read(key int, values ...int) Op { return Op{Type: OpRead, Key: key, Values: values} }

// String formats the op as append(k, v), write(k, v), read(k) = [v …] or
// read(k) = nil.
func (o Op) String() string {
	switch o.Type {
	case OpAppend:
		return fmt.Sprintf("append(%d, %d)", o.Key, o.Value)
	case OpWrite:
		return fmt.Sprintf("write(%d, %d)", o.Key, o.Value)
	case OpRead:
		if o.Values == nil {
			return fmt.Sprintf("read(%d) = nil", o.Key)
		}
		return fmt.Sprintf("read(%d) = %s", o.Key, formatList(o.Values))
	}
	return fmt.Sprintf("OpType(%d)(%d, %d)", o.Type, o.Key, o.Value)
}

// formatList formats values as [1 2 3].
func formatList(values []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, v)
	}
	b.WriteByte(']')
	return b.String()
}

// An Outcome is what the client learned of a transaction.
type Outcome uint8

// The outcomes. Unknown is the zero value: a transaction that never
// completed, or that timed out, may or may not have committed.
const (
	Unknown Outcome = iota // may or may not have committed
	OK                     // committed; its reads are known
	Fail                   // known to have aborted
)

var outcomeNames = [...]string{"unknown", "ok", "fail"}

// String returns "ok", "fail" or "unknown".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// A Txn is one transaction of a history, in virtual time.
type Txn struct {
	Process  int           // the client that ran it; a process runs one transaction at a time
	Invoke   time.Duration // when the client began it
	Complete time.Duration // when the client learned the outcome (OK and Fail only)
	Outcome  Outcome
	Ops      []Op // for OK, with the reads' results
}

// String formats the transaction as its ops, outcome, process and times.
func (t Txn) String() string {
	ops := make([]string, len(t.Ops))
	for i, o := range t.Ops {
		ops[i] = o.String()
		if o.Type == OpRead && t.Outcome != OK {
			ops[i] = fmt.Sprintf("read(%d)", o.Key)
		}
	}
	when := fmt.Sprintf("%v–%v", t.Invoke, t.Complete)
	if t.Outcome == Unknown {
		when = fmt.Sprintf("%v–?", t.Invoke)
	}
	return fmt.Sprintf("[%s] %s, process %d, %s", strings.Join(ops, " "), t.Outcome, t.Process, when)
}

// A History records transactions as clients run them, with the world's
// virtual times, and the version orders a system reveals. The zero value is
// an empty history. It keeps the op slices it is given: do not change them
// afterwards.
type History struct {
	txns      []Txn
	installed map[int][]int // key -> values in the order the system installed them
}

// Invoke records that process began a transaction of ops at virtual time
// at, and returns its id for Complete. Until completed, the transaction's
// outcome is Unknown.
func (h *History) Invoke(process int, ops []Op, at time.Duration) int {
	h.txns = append(h.txns, Txn{Process: process, Invoke: at, Ops: ops})
	return len(h.txns) - 1
}

// Complete records that transaction id ended with outcome at virtual time
// at. For OK, ops are the transaction's micro-ops with the reads' results
// filled in: the same ops, in the same order, as invoked. For Fail and
// Unknown (the client gave up waiting), ops may be nil. A mismatch is a
// programming error and panics, naming the op.
func (h *History) Complete(id int, outcome Outcome, ops []Op, at time.Duration) {
	if id < 0 || id >= len(h.txns) {
		panic(fmt.Sprintf("txncheck: Complete: no transaction %d (history has %d)", id, len(h.txns)))
	}
	t := &h.txns[id]
	if t.Outcome != Unknown {
		panic(fmt.Sprintf("txncheck: Complete: T%d already completed (%v)", id, t.Outcome))
	}
	if outcome == Unknown {
		return
	}
	if outcome == OK {
		if err := sameShape(t.Ops, ops); err != nil {
			panic(fmt.Sprintf("txncheck: Complete: T%d: %v", id, err))
		}
		t.Ops = ops
	}
	t.Outcome, t.Complete = outcome, at
}

// sameShape reports how done differs from invoked other than in the reads'
// results, or nil.
func sameShape(invoked, done []Op) error {
	if len(done) != len(invoked) {
		return fmt.Errorf("completed with %d ops, invoked with %d", len(done), len(invoked))
	}
	for i, o := range done {
		in := invoked[i]
		if o.Type != in.Type || o.Key != in.Key || (o.Type != OpRead && o.Value != in.Value) {
			return fmt.Errorf("op %d completed as %v, invoked as %v", i, o, in)
		}
	}
	return nil
}

// Add records a whole transaction at once (for histories built by hand or
// by a generator) and returns its id.
func (h *History) Add(t Txn) int {
	h.txns = append(h.txns, t)
	return len(h.txns) - 1
}

// Installed records that the system installed value as key's next version:
// a white-box version order, such as the order in which a shard's state
// machine applied appends or writes. The check holds it against what the
// transactions read, and uses it to order versions no read orders.
func (h *History) Installed(key, value int) {
	if h.installed == nil {
		h.installed = make(map[int][]int)
	}
	h.installed[key] = append(h.installed[key], value)
}

// Len returns the number of transactions recorded.
func (h *History) Len() int { return len(h.txns) }

// Txns returns the transactions, by id. A transaction never completed is
// Unknown.
func (h *History) Txns() []Txn { return h.txns }
