package shardtxn

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// An OpKind says what an Op does.
type OpKind uint8

// The operations a transaction is made of (paper 000's GET, SET, DEL and
// conditional SET, and the list APPEND and READ that the transaction
// checker reads histories from).
const (
	OpGet    OpKind = iota + 1 // read Key's value
	OpSet                      // set Key to Value
	OpDel                      // remove Key (idempotent: no error if it is absent)
	OpCSet                     // set Key to Value if its value is Expect (absent: Expect is "" and Absent is true)
	OpAppend                   // append Value, one element, to Key's list
	OpRead                     // read Key's list
)

var opNames = [...]string{OpGet: "get", OpSet: "set", OpDel: "del", OpCSet: "cset", OpAppend: "append", OpRead: "read"}

// String names the kind.
func (k OpKind) String() string {
	if k >= OpGet && k <= OpRead {
		return opNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", int(k))
}

// Limits on what an operation may carry.
const (
	MaxKey   = 256      // bytes in a key
	MaxValue = 64 << 10 // bytes in a value or list element
	MaxOps   = 1024     // operations in one transaction
)

// An Op is one operation of a transaction, on one key.
type Op struct {
	Kind   OpKind
	Key    string
	Value  string // OpSet, OpCSet: the new value; OpAppend: the element
	Expect string // OpCSet: the value the key must hold
	Absent bool   // OpCSet: the key must not exist (Expect is then "")
}

// Get returns the operation that reads key.
func Get(key string) Op { return Op{Kind: OpGet, Key: key} }

// Set returns the operation that sets key to value.
func Set(key, value string) Op { return Op{Kind: OpSet, Key: key, Value: value} }

// Del returns the operation that removes key.
func Del(key string) Op { return Op{Kind: OpDel, Key: key} }

// CSet returns the operation that sets key to value if it holds expect.
func CSet(key, value, expect string) Op {
	return Op{Kind: OpCSet, Key: key, Value: value, Expect: expect}
}

// CSetAbsent returns the operation that sets key to value if it does not
// exist.
func CSetAbsent(key, value string) Op { return Op{Kind: OpCSet, Key: key, Value: value, Absent: true} }

// Append returns the operation that appends elem to key's list.
func Append(key, elem string) Op { return Op{Kind: OpAppend, Key: key, Value: elem} }

// Read returns the operation that reads key's list.
func Read(key string) Op { return Op{Kind: OpRead, Key: key} }

// String formats the op as the paper's client would type it.
func (o Op) String() string {
	switch o.Kind {
	case OpGet, OpDel, OpRead:
		return fmt.Sprintf("%v %s", o.Kind, o.Key)
	case OpCSet:
		if o.Absent {
			return fmt.Sprintf("cset %s %q if absent", o.Key, o.Value)
		}
		return fmt.Sprintf("cset %s %q if %q", o.Key, o.Value, o.Expect)
	}
	return fmt.Sprintf("%v %s %q", o.Kind, o.Key, o.Value)
}

// writes reports whether the op changes its key (and so needs the key's
// exclusive lock).
func (o Op) writes() bool { return o.Kind != OpGet && o.Kind != OpRead }

// check returns an error naming what is wrong with the op, or nil.
func (o Op) check() error {
	switch {
	case o.Kind < OpGet || o.Kind > OpRead:
		return fmt.Errorf("shardtxn: unknown operation %d on key %q", int(o.Kind), o.Key)
	case o.Key == "":
		return fmt.Errorf("shardtxn: %v with an empty key", o.Kind)
	case len(o.Key) > MaxKey:
		return fmt.Errorf("shardtxn: %v: key of %d bytes (at most %d)", o.Kind, len(o.Key), MaxKey)
	case len(o.Value) > MaxValue || len(o.Expect) > MaxValue:
		return fmt.Errorf("shardtxn: %v %s: value of %d bytes (at most %d)", o.Kind, o.Key, max(len(o.Value), len(o.Expect)), MaxValue)
	case o.Kind == OpAppend && (o.Value == "" || strings.ContainsRune(o.Value, ' ')):
		return fmt.Errorf("shardtxn: append %s %q: an element must be non-empty and hold no space", o.Key, o.Value)
	case o.Absent && o.Expect != "":
		return fmt.Errorf("shardtxn: cset %s: expects both absence and %q", o.Key, o.Expect)
	}
	return nil
}

// checkTxn returns an error naming the first thing wrong with a
// transaction's ops, or nil.
func checkTxn(ops []Op) error {
	if len(ops) == 0 {
		return fmt.Errorf("shardtxn: an empty transaction")
	}
	if len(ops) > MaxOps {
		return fmt.Errorf("shardtxn: a transaction of %d operations (at most %d)", len(ops), MaxOps)
	}
	for _, o := range ops {
		if err := o.check(); err != nil {
			return err
		}
	}
	return nil
}

// Fold removes the redundant operations of a transaction, as paper 000's
// client does before sending it: a Set or Del whose key is set or deleted
// again later, with no operation on the key between, is dropped (the last
// write wins). It returns a new slice and, for each op kept, its index in
// ops, so that results can be matched to what the caller asked.
func Fold(ops []Op) (kept []Op, from []int) {
	for i, o := range ops {
		if (o.Kind == OpSet || o.Kind == OpDel) && overwritten(ops[i+1:], o.Key) {
			continue
		}
		kept = append(kept, o)
		from = append(from, i)
	}
	return kept, from
}

// overwritten reports whether the first op on key in rest is a Set or a
// Del.
func overwritten(rest []Op, key string) bool {
	for _, o := range rest {
		if o.Key == key {
			return o.Kind == OpSet || o.Kind == OpDel
		}
	}
	return false
}

// ShardOf returns the shard of key among shards: FNV-1a of the key, so
// that keys spread evenly. It panics, naming shards, if shards is not
// positive.
func ShardOf(key string, shards int) int {
	if shards <= 0 {
		panic(fmt.Sprintf("shardtxn: ShardOf(%q, %d): the number of shards must be positive", key, shards))
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(shards))
}

// A Result is what one op returned: for Get, the value and whether the key
// exists; for Read, the list (nil if the key does not exist).
type Result struct {
	Value string
	Found bool
	List  []string
}

// A Txid names a transaction: the client that runs it and the client's
// sequence number for it. A client runs one transaction at a time and
// retries it under the same Txid, so it applies at most once.
type Txid struct {
	Client int64
	Seq    int64
}

// String formats the id as client.seq.
func (id Txid) String() string { return fmt.Sprintf("%d.%d", id.Client, id.Seq) }

// check returns an error if id names no transaction: a client numbers
// its transactions from 1 (the zero Txid stands for no transaction in a
// shard's lock table).
func (id Txid) check() error {
	if id.Seq < 1 {
		return fmt.Errorf("shardtxn: transaction %v: Seq %d is below 1 and names no transaction", id, id.Seq)
	}
	return nil
}

// checkRequest returns an error naming the first thing wrong with a
// transaction sent to a server, its id or its ops, or nil.
func checkRequest(id Txid, ops []Op) error {
	if err := id.check(); err != nil {
		return err
	}
	return checkTxn(ops)
}

func (id Txid) less(o Txid) bool {
	return id.Client < o.Client || id.Client == o.Client && id.Seq < o.Seq
}
