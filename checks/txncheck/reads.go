package txncheck

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
)

// A readRec is an external read of a committed transaction: its first
// access to the key, which observes another transaction's version.
type readRec struct {
	txn, op, key int32
	// at locates the version read. Lists: how many elements the read
	// returned (the version is order[at-1], the initial one for 0).
	// Registers: the version read, or initial. For both, unordered if the
	// read does not fit the version order.
	at int32
}

// Special values of readRec.at.
const (
	initial   = -1 // a register's initial state
	unordered = -2 // a read that fits no version order: no edges from it
)

// checkReads walks every committed transaction's reads: internal
// consistency, reads that do not fit their key's order, aborted and
// intermediate reads; it records the external reads for the dependency
// edges and the read-modify-writes for lost updates. Its error is a
// register read of several values.
func (c *checker) checkReads() error {
	for r := range c.committedReads() {
		id, i, ki := r.txn, r.op, r.key
		t := &c.txns[id]
		o := t.Ops[i]
		k := &c.keys[ki]
		if k.kind == registerKey && len(o.Values) > 1 {
			return fmt.Errorf("txncheck: T%d op %d: register %d read as %d values %v", id, i, o.Key, len(o.Values), o.Values)
		}
		prev := previousOnKey(t.Ops, i)
		if prev >= 0 {
			c.internal(id, t.Ops, i, prev, k.kind)
		}
		var at int32
		switch k.kind {
		case unwritten:
			for _, value := range o.Values {
				c.garbage(int32(id), o.Key, value, o.Values)
			}
			continue
		case listKey:
			at = c.checkListRead(id, o, ki)
		case registerKey:
			at = c.checkRegisterRead(id, o, ki)
		}
		c.futureRead(id, i, ki, at)
		if prev < 0 {
			r := readRec{txn: int32(id), op: int32(i), key: ki, at: at}
			c.reads = append(c.reads, r)
			if c.proscribed.has(LostUpdate) && writesAgain(t.Ops, i) {
				c.rmw = append(c.rmw, r)
			}
		}
	}
	return nil
}

// futureRead reports a read of transaction id (op i, on key index ki,
// at its place at in the version order) that shows one of the
// transaction's own later appends or writes.
func (c *checker) futureRead(id, i int, ki, at int32) {
	ops := c.txns[id].Ops
	o := ops[i]
	for _, w := range ops[i+1:] {
		if w.Key != o.Key || w.Type == OpRead {
			continue
		}
		v, _ := c.version(ki, w.Value)
		shows := slices.Contains(o.Values, w.Value)
		if c.keys[ki].kind == listKey && at != unordered {
			shows = c.vers[v].ordered && c.vers[v].pos < at
		}
		if shows {
			c.add(Anomaly{Type: FutureRead, Txns: []int{id}, Key: o.Key,
				Text: fmt.Sprintf("T%d read key %d = %s, including its own later %v", id, o.Key, formatList(o.Values), w)})
			return
		}
	}
}

// A readOp is a read of a committed transaction: its op and key indexes.
type readOp struct {
	txn, op int
	key     int32
}

// committedReads yields the reads of committed transactions, in history
// order.
func (c *checker) committedReads() iter.Seq[readOp] {
	return func(yield func(readOp) bool) {
		for id, t := range c.txns {
			if t.Outcome != OK {
				continue
			}
			keys := c.keysOf(id)
			for i, o := range t.Ops {
				if o.Type == OpRead && !yield(readOp{id, i, keys[i]}) {
					return
				}
			}
		}
	}
}

// previousOnKey returns the index of the last op before i on ops[i]'s key,
// or -1.
func previousOnKey(ops []Op, i int) int {
	for j := i - 1; j >= 0; j-- {
		if ops[j].Key == ops[i].Key {
			return j
		}
	}
	return -1
}

// internal checks that read i of a transaction agrees with the transaction's
// own earlier ops on the key, the last of which is op prev.
func (c *checker) internal(id int, ops []Op, i, prev int, kind keyKind) {
	got := ops[i].Values
	var want []int // what the read must show; for lists without an earlier read, its suffix
	whole := false
	if kind == registerKey || kind == unwritten {
		whole = true
		if ops[prev].Type == OpRead {
			want = ops[prev].Values
		} else {
			want = []int{ops[prev].Value}
		}
	} else {
		start := 0
		for j := prev; j >= 0; j-- {
			if ops[j].Key == ops[i].Key && ops[j].Type == OpRead {
				want, whole, start = ops[j].Values, true, j+1
				break
			}
		}
		for j := start; j < i; j++ {
			if ops[j].Key == ops[i].Key && ops[j].Type == OpAppend {
				want = append(want[:len(want):len(want)], ops[j].Value)
			}
		}
	}
	if whole && slices.Equal(got, want) || !whole && len(got) >= len(want) && slices.Equal(got[len(got)-len(want):], want) {
		return
	}
	expected := formatList(want)
	if !whole {
		expected = "a list ending in " + expected
	}
	c.add(Anomaly{Type: Internal, Txns: []int{id}, Key: ops[i].Key,
		Text: fmt.Sprintf("T%d read key %d = %s after its own %v: expected %s", id, ops[i].Key, formatList(got), ops[prev], expected)})
}

// kv names a value of a key.
type kv struct{ key, value int }

// garbage reports that source read value on key k, which nobody wrote.
func (c *checker) garbage(source int32, key, value int, read []int) {
	if c.garbageSeen[kv{key, value}] {
		return
	}
	c.garbageSeen[kv{key, value}] = true
	c.add(Anomaly{Type: GarbageRead, Txns: c.sourceTxns(source), Key: key,
		Text: fmt.Sprintf("%s key %d = %s: no transaction wrote %d to key %d", c.reader(source), key, formatList(read), value, key)})
}

// aborted reports that committed transaction id read version v, which an
// aborted transaction wrote.
func (c *checker) aborted(id int, o Op, v int32) {
	w := c.vers[v].txn
	c.add(Anomaly{Type: G1a, Txns: []int{id, int(w)}, Key: o.Key,
		Text: fmt.Sprintf("T%d read key %d = %s, including %s; T%d aborted", id, o.Key, formatList(o.Values), c.describe(v), w)})
}

// intermediate reports a read whose last value v another transaction
// overwrote later in itself.
func (c *checker) intermediate(id int, o Op, v int32) {
	if v < 0 || !c.vers[v].interm || c.vers[v].txn == int32(id) {
		return
	}
	w := c.vers[v].txn
	c.add(Anomaly{Type: G1b, Txns: []int{id, int(w)}, Key: o.Key,
		Text: fmt.Sprintf("T%d read key %d = %s, ending in %s, which T%d later overwrote or appended to", id, o.Key, formatList(o.Values), c.describe(v), w)})
}

// lostUpdates reports committed transactions that read the same version of
// a key and then both wrote it.
func (c *checker) lostUpdates() {
	rmw := c.rmw
	slices.SortFunc(rmw, func(a, b readRec) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.at, b.at), cmp.Compare(a.txn, b.txn))
	})
	for i := 0; i < len(rmw); {
		j := i + 1
		for j < len(rmw) && rmw[j].key == rmw[i].key && rmw[j].at == rmw[i].at {
			j++
		}
		if j-i > 1 && rmw[i].at != unordered {
			c.lostUpdate(rmw[i:j])
		}
		i = j
	}
}

// lostUpdate reports one group of transactions that read the same version
// and wrote it.
func (c *checker) lostUpdate(group []readRec) {
	txns := make([]int, len(group))
	for i, r := range group {
		txns[i] = int(r.txn)
	}
	r := group[0]
	text := fmt.Sprintf("T%d and T%d both read %s and then both wrote it", txns[0], txns[1], c.readText(r))
	if len(txns) > 2 {
		text += fmt.Sprintf(" (and %d more: %v)", len(txns)-2, txns[2:])
	}
	c.add(Anomaly{Type: LostUpdate, Txns: txns, Key: c.txns[r.txn].Ops[r.op].Key, Text: text})
}
