package txncheck

import (
	"cmp"
	"fmt"
	"slices"
)

// A keyKind says whether a key holds a list or a register.
type keyKind uint8

const (
	unwritten keyKind = iota // read only: its only version is the initial one
	listKey
	registerKey
)

// A version is a value appended or written, by any transaction.
type version struct {
	txn    int32 // the writer
	op     int32 // the op's index in the writer's Ops
	key    int32 // index into checker.keys
	interm bool  // the writer wrote the key again later: not a version it installed
	failed bool  // the writer aborted
	// ordered is set once the version has its place in a list's version
	// order, at pos.
	ordered bool
	pos     int32
	seen    bool // a committed read or the installed order shows it
}

// Special values of keyInfo.order.
const (
	garbageValue  = -1 // a value nobody wrote
	repeatedValue = -2 // a value's second occurrence
)

// A keyInfo holds what the check learned of one key.
type keyInfo struct {
	key     int
	kind    keyKind
	writes  int32    // how many values were appended or written to it
	values  [2]int32 // the range of its versions in checker.byValue
	longest []int    // lists: the longest read (or installed order): the version order
	source  int32    // the transaction that read it, or -1 for the installed order
	// order holds, for lists, the version of each element of longest, or
	// garbageValue or repeatedValue.
	order []int32
	// roots holds, for registers, the versions that follow the initial
	// state directly: those no known version precedes.
	roots []int32
	// unread holds, for lists, the final appends of committed
	// transactions that no read shows: they follow the longest read.
	unread []int32
	cyclic bool // registers: its version-order sources contradict each other
}

// key returns the index of key k, adding it.
func (c *checker) key(k int) int32 {
	if i, ok := c.keyIdx[k]; ok {
		return i
	}
	i := int32(len(c.keys))
	c.keyIdx[k] = i
	c.keys = append(c.keys, keyInfo{key: k, source: -1})
	return i
}

// indexWrites checks the history's shape, numbers the keys (opKeys) and
// indexes every value appended or written, by (key, value).
func (c *checker) indexWrites() error {
	nops, nwrites := 0, 0
	for _, t := range c.txns {
		nops += len(t.Ops)
		for _, o := range t.Ops {
			if o.Type != OpRead {
				nwrites++
			}
		}
	}
	c.reads = make([]readRec, 0, nops-nwrites)
	c.opStart = make([]int32, len(c.txns)+1)
	c.opKeys = make([]int32, 0, nops)
	c.vers = make([]version, 0, nwrites)
	for id, t := range c.txns {
		c.opStart[id] = int32(len(c.opKeys))
		if t.Outcome > Fail {
			return fmt.Errorf("txncheck: T%d: outcome %v", id, t.Outcome)
		}
		if t.Outcome != Unknown && t.Complete < t.Invoke {
			return fmt.Errorf("txncheck: T%d: completed at %v, before it was invoked at %v", id, t.Complete, t.Invoke)
		}
		for i, o := range t.Ops {
			ki := c.key(o.Key)
			c.opKeys = append(c.opKeys, ki)
			k := &c.keys[ki]
			var kind keyKind
			switch o.Type {
			case OpRead:
				continue
			case OpAppend:
				kind = listKey
			case OpWrite:
				kind = registerKey
			default:
				return fmt.Errorf("txncheck: T%d op %d: unknown op type %d", id, i, o.Type)
			}
			if k.kind != unwritten && k.kind != kind {
				return fmt.Errorf("txncheck: key %d is both appended to and written (T%d op %d: %v)", o.Key, id, i, o)
			}
			k.kind = kind
			k.writes++
			c.vers = append(c.vers, version{txn: int32(id), op: int32(i), key: ki, interm: writesAgain(t.Ops, i), failed: t.Outcome == Fail})
		}
	}
	c.opStart[len(c.txns)] = int32(len(c.opKeys))
	if err := c.indexValues(); err != nil {
		return err
	}
	keys := make([]int, 0, len(c.installed))
	for k := range c.installed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c.key(k)
	}
	return nil
}

// keysOf returns the key index of each of transaction t's ops.
func (c *checker) keysOf(t int) []int32 { return c.opKeys[c.opStart[t]:c.opStart[t+1]] }

// writesAgain reports whether ops after i append or write ops[i]'s key.
func writesAgain(ops []Op, i int) bool {
	for _, o := range ops[i+1:] {
		if o.Key == ops[i].Key && o.Type != OpRead {
			return true
		}
	}
	return false
}

// A valueRef is a version in the index by value.
type valueRef struct {
	value int
	v     int32
}

// indexValues sorts the versions by key (keyInfo.values is each key's
// range) and then by value, and checks that no key has a value twice.
func (c *checker) indexValues() error {
	start := int32(0)
	for ki := range c.keys {
		k := &c.keys[ki]
		k.values = [2]int32{start, start}
		start += k.writes
	}
	c.byValue = make([]valueRef, len(c.vers))
	for v, ver := range c.vers {
		k := &c.keys[ver.key]
		c.byValue[k.values[1]] = valueRef{c.txns[ver.txn].Ops[ver.op].Value, int32(v)}
		k.values[1]++
	}
	by := func(a, b valueRef) int { return cmp.Or(cmp.Compare(a.value, b.value), cmp.Compare(a.v, b.v)) }
	for _, k := range c.keys {
		refs := c.byValue[k.values[0]:k.values[1]]
		if !slices.IsSortedFunc(refs, by) {
			slices.SortFunc(refs, by)
		}
		for i := 1; i < len(refs); i++ {
			if refs[i].value == refs[i-1].value {
				return fmt.Errorf("txncheck: key %d: value %d written twice, by T%d and T%d (values must be unique per key)", k.key, refs[i].value, c.vers[refs[i-1].v].txn, c.vers[refs[i].v].txn)
			}
		}
	}
	return nil
}

// version returns the version of value on key index ki, if anyone wrote it.
func (c *checker) version(ki int32, value int) (int32, bool) {
	k := &c.keys[ki]
	refs := c.byValue[k.values[0]:k.values[1]]
	i, ok := slices.BinarySearchFunc(refs, value, func(r valueRef, value int) int { return cmp.Compare(r.value, value) })
	if !ok {
		return -1, false
	}
	return refs[i].v, true
}
