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
