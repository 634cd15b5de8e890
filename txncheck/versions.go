package txncheck

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
)

// A keyKind says whether a key holds a list or a register.
type keyKind uint8

const (
	unwritten keyKind = iota // read only: its only version is the initial one
	listKey
	registerKey
)

// kv names a value of a key.
type kv struct{ key, value int }

// A version is a value appended or written, by any transaction.
type version struct {
	txn    int32 // the writer
	op     int32 // the op's index in the writer's Ops
	key    int32 // index into checker.keys
	interm bool  // the writer wrote the key again later: not a version it installed
	failed bool  // the writer aborted
	// ordered is set once the version has its place in a version order.
	ordered bool
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
}

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

// orderLists takes each list key's longest read (or the installed order,
// if longer) as its version order, and flags garbage and duplicate values
// in it.
func (c *checker) orderLists() {
	for r := range c.committedReads() {
		k := &c.keys[r.key]
		if o := c.txns[r.txn].Ops[r.op]; k.kind == listKey && len(o.Values) > len(k.longest) {
			k.longest, k.source = o.Values, int32(r.txn)
		}
	}
	for ki := range c.keys {
		k := &c.keys[ki]
		if k.kind != listKey {
			continue
		}
		if in := c.installed[k.key]; len(in) > len(k.longest) {
			k.longest, k.source = in, -1
		}
		k.order = make([]int32, len(k.longest))
		for i, value := range k.longest {
			v, ok := c.version(int32(ki), value)
			switch {
			case !ok:
				v = garbageValue
				c.garbage(k.source, k.key, value, k.longest)
			case c.vers[v].ordered:
				v = repeatedValue
				c.add(Anomaly{Type: DuplicateElements, Txns: c.sourceTxns(k.source), Key: k.key,
					Text: fmt.Sprintf("%s key %d = %s, with %d twice", c.reader(k.source), k.key, formatList(k.longest), value)})
			default:
				c.vers[v].ordered = true
			}
			k.order[i] = v
		}
	}
}

// sourceTxns returns the transaction that read a key's longest value, if
// one did (not the installed order).
func (c *checker) sourceTxns(source int32) []int {
	if source < 0 {
		return nil
	}
	return []int{int(source)}
}

// reader names who read a version order: "T5 read", or "the installed
// order has".
func (c *checker) reader(source int32) string {
	if source < 0 {
		return "the installed order has"
	}
	return fmt.Sprintf("T%d read", source)
}

// garbage reports that source read value on key k, which nobody wrote.
func (c *checker) garbage(source int32, key, value int, read []int) {
	if c.garbageSeen[kv{key, value}] {
		return
	}
	c.garbageSeen[kv{key, value}] = true
	c.add(Anomaly{Type: GarbageRead, Txns: c.sourceTxns(source), Key: key,
		Text: fmt.Sprintf("%s key %d = %s: no transaction wrote %d to key %d", c.reader(source), key, formatList(read), value, key)})
}

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
		if prev < 0 {
			r := readRec{txn: int32(id), op: int32(i), key: ki, at: at}
			c.reads = append(c.reads, r)
			if c.model >= SnapshotIsolation && writesAgain(t.Ops, i) {
				c.rmw = append(c.rmw, r)
			}
		}
	}
	return nil
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

// checkListRead checks a committed read of a list against the key's version
// order and returns where it sits in it (readRec.at).
func (c *checker) checkListRead(id int, o Op, ki int32) int32 {
	k := &c.keys[ki]
	n := len(o.Values)
	if n > len(k.longest) || !slices.Equal(o.Values, k.longest[:n]) {
		c.incompatible(id, o, ki)
		return unordered
	}
	for _, v := range k.order[:n] {
		if v >= 0 && c.vers[v].failed {
			c.aborted(id, o, v)
			break
		}
	}
	if n > 0 {
		c.intermediate(id, o, k.order[n-1])
	}
	return int32(n)
}

// incompatible reports a read that is not a prefix of its key's longest
// read, and checks its values one by one.
func (c *checker) incompatible(id int, o Op, ki int32) {
	k := &c.keys[ki]
	if !c.incompatibleSeen[o.Key] {
		c.incompatibleSeen[o.Key] = true
		c.add(Anomaly{Type: IncompatibleOrder, Txns: append([]int{id}, c.sourceTxns(k.source)...), Key: o.Key,
			Text: fmt.Sprintf("T%d read key %d = %s, but %s %s: neither is a prefix of the other", id, o.Key, formatList(o.Values), c.reader(k.source), formatList(k.longest))})
	}
	for _, value := range o.Values {
		v, ok := c.version(ki, value)
		if !ok {
			c.garbage(int32(id), o.Key, value, o.Values)
		} else if c.vers[v].failed {
			c.aborted(id, o, v)
			return
		}
	}
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

// checkRegisterRead checks a committed read of a register and returns the
// version it read (readRec.at).
func (c *checker) checkRegisterRead(id int, o Op, ki int32) int32 {
	if len(o.Values) == 0 {
		return initial
	}
	v, ok := c.version(ki, o.Values[0])
	switch {
	case !ok:
		c.garbage(int32(id), o.Key, o.Values[0], o.Values)
		return unordered
	case c.vers[v].failed:
		c.aborted(id, o, v)
		return unordered
	}
	c.intermediate(id, o, v)
	return v
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
	o := c.txns[r.txn].Ops[r.op]
	text := fmt.Sprintf("T%d and T%d both read key %d = %s and then both wrote it", txns[0], txns[1], o.Key, formatList(o.Values))
	if len(txns) > 2 {
		text += fmt.Sprintf(" (and %d more: %v)", len(txns)-2, txns[2:])
	}
	c.add(Anomaly{Type: LostUpdate, Txns: txns, Key: o.Key, Text: text})
}
