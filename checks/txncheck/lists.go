package txncheck

import (
	"fmt"
	"slices"
)

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
				c.vers[v].ordered, c.vers[v].pos, c.vers[v].seen = true, int32(i), true
			}
			k.order[i] = v
		}
		c.dirtyUpdates(k)
		c.ownOrder(k)
	}
}

// ownOrder reports a list whose version order has a transaction's append
// without its earlier append to the key before it: a transaction's
// appends take effect in its order.
func (c *checker) ownOrder(k *keyInfo) {
	for _, v := range k.order {
		if v < 0 {
			continue
		}
		ops := c.txns[c.vers[v].txn].Ops
		at := c.vers[v].op
		for j := at - 1; j >= 0; j-- {
			if ops[j].Key != ops[at].Key || ops[j].Type != OpAppend {
				continue
			}
			u, _ := c.version(c.vers[v].key, ops[j].Value)
			if c.vers[u].ordered && c.vers[u].pos < c.vers[v].pos {
				break
			}
			if !c.incompatibleSeen[k.key] {
				c.incompatibleSeen[k.key] = true
				c.add(Anomaly{Type: IncompatibleOrder, Txns: append(c.sourceTxns(k.source), int(c.vers[v].txn)), Key: k.key,
					Text: fmt.Sprintf("%s key %d = %s, with %s but not, before it, the same transaction's earlier append of %d", c.reader(k.source), k.key, formatList(k.longest), c.describe(v), ops[j].Value)})
			}
			return
		}
	}
}

// dirtyUpdates reports the first committed append of a list's version
// order installed directly on an aborted one.
func (c *checker) dirtyUpdates(k *keyInfo) {
	prev := int32(-1)
	for _, v := range k.order {
		if v < 0 {
			continue
		}
		if prev >= 0 && c.vers[prev].failed && !c.vers[v].failed {
			c.dirtyUpdate(prev, v, c.reader(k.source))
			return
		}
		prev = v
	}
}

// dirtyUpdate reports committed version v installed directly on aborted
// version a, as who (a reader, or the installed order) shows.
func (c *checker) dirtyUpdate(a, v int32, who string) {
	k := &c.keys[c.vers[v].key]
	c.add(Anomaly{Type: DirtyUpdate, Txns: []int{int(c.vers[v].txn), int(c.vers[a].txn)}, Key: k.key,
		Text: fmt.Sprintf("%s %s directly after %s; T%d aborted", who, c.describe(v), c.describe(a), c.vers[a].txn)})
}

// placeUnread finds, for each list key, the final appends of committed
// transactions (or of transactions of unknown outcome that a read shows
// committed) that no read shows. A list only grows, so each was installed
// after the key's longest read: they follow it in the version order, in
// an order nobody saw.
func (c *checker) placeUnread() {
	for v := range c.vers {
		ver := &c.vers[v]
		k := &c.keys[ver.key]
		if k.kind == listKey && !ver.seen && !ver.interm && !ver.failed && c.committed(ver.txn) {
			k.unread = append(k.unread, int32(v))
		}
	}
}

// markShown marks the transactions of unknown outcome that a read or the
// installed order shows committed.
func (c *checker) markShown() {
	c.shown = make([]bool, len(c.txns))
	for _, v := range c.vers {
		if v.seen && !v.failed {
			c.shown[v.txn] = true
		}
	}
}

// committed reports whether transaction t committed: it is OK, or a read
// shows one of its writes.
func (c *checker) committed(t int32) bool { return c.txns[t].Outcome == OK || c.shown[t] }

// lastList returns the last committed (or possibly committed) version of
// list key among its first n elements, or -1.
func (c *checker) lastList(key, n int32) int32 {
	order := c.keys[key].order[:n]
	for i := len(order) - 1; i >= 0; i-- {
		if v := order[i]; v >= 0 && !c.vers[v].failed {
			return v
		}
	}
	return -1
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
		if ok {
			c.vers[v].seen = true
		}
		if !ok {
			c.garbage(int32(id), o.Key, value, o.Values)
		} else if c.vers[v].failed {
			c.aborted(id, o, v)
			return
		}
	}
}
