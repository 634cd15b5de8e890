package txncheck

import (
	"fmt"
	"slices"
	"strings"
)

// readsOf returns the external reads of transaction t (c.reads is in
// transaction order).
func (c *checker) readsOf(t int32) []readRec {
	i, _ := slices.BinarySearchFunc(c.reads, t, func(r readRec, t int32) int { return int(r.txn - t) })
	j := i
	for j < len(c.reads) && c.reads[j].txn == t {
		j++
	}
	return c.reads[i:j]
}

// observed returns the version read r saw, or initial, or unordered.
func (c *checker) observed(r readRec) int32 {
	switch {
	case r.at == unordered || c.keys[r.key].kind == registerKey:
		return r.at
	case r.at == 0:
		return initial
	}
	return c.lastList(r.key, r.at)
}

// next returns the versions that directly follow the one read r saw.
func (c *checker) next(r readRec) []int32 {
	if r.at == unordered {
		return nil
	}
	if c.keys[r.key].kind == registerKey {
		return c.nextRegister(r.key, r.at)
	}
	if v := c.nextList(r.key, r.at); v >= 0 {
		return []int32{v}
	}
	return c.keys[r.key].unread
}

// describe names version v as "T12's append of 7 to key 3".
func (c *checker) describe(v int32) string {
	w := c.vers[v]
	o := c.txns[w.txn].Ops[w.op]
	verb := "append"
	if o.Type == OpWrite {
		verb = "write"
	}
	return fmt.Sprintf("T%d's %s of %d to key %d", w.txn, verb, o.Value, o.Key)
}

// readText formats what read r returned as its op does: "key 3 = [1 2]",
// "key 3 = nil" (a list never written), or "key 3 unwritten" for a
// register in its initial state.
func (c *checker) readText(r readRec) string {
	o := c.txns[r.txn].Ops[r.op]
	switch {
	case c.keys[r.key].kind != registerKey && o.Values == nil:
		return fmt.Sprintf("key %d = nil", o.Key)
	case c.keys[r.key].kind != registerKey:
		return fmt.Sprintf("key %d = %s", o.Key, formatList(o.Values))
	case len(o.Values) == 0:
		return fmt.Sprintf("key %d unwritten", o.Key)
	}
	return fmt.Sprintf("key %d = %d", o.Key, o.Values[0])
}

// why explains edge e in a sentence: "T40 read T12's append of 7 to key 3".
func (c *checker) why(e cycleEdge) string {
	from, to := &c.txns[e.from], &c.txns[e.to]
	switch e.dep {
	case WW:
		for _, v := range c.writes(e.to) {
			for _, a := range c.writes(e.from) {
				switch {
				case !c.directlyBefore(a, v):
				case c.keys[c.vers[v].key].kind == listKey && !c.vers[v].ordered:
					return fmt.Sprintf("%s, which no read shows, came after %s, the last version read", c.describe(v), c.describe(a))
				default:
					return fmt.Sprintf("%s is the version right after %s", c.describe(v), c.describe(a))
				}
			}
		}
	case WR:
		for _, r := range c.readsOf(e.to) {
			if v := c.observed(r); v >= 0 && c.vers[v].txn == e.from {
				return fmt.Sprintf("T%d read %s", e.to, c.describe(v))
			}
		}
	case RW:
		for _, r := range c.readsOf(e.from) {
			for _, v := range c.next(r) {
				switch {
				case c.vers[v].txn != e.to:
				case c.keys[r.key].kind == listKey && !c.vers[v].ordered:
					return fmt.Sprintf("T%d read %s, without %s, which no read shows (a list only grows: it came later)", e.from, c.readText(r), c.describe(v))
				default:
					return fmt.Sprintf("T%d read %s, the version before %s", e.from, c.readText(r), c.describe(v))
				}
			}
		}
	case Proc:
		return fmt.Sprintf("process %d ran T%d (completed at %v), then T%d (began at %v)", from.Process, e.from, from.Complete, e.to, to.Invoke)
	case RT:
		return fmt.Sprintf("T%d completed at %v, before T%d began at %v", e.from, from.Complete, e.to, to.Invoke)
	}
	panic(fmt.Sprintf("txncheck: no reason found for edge T%d -%v-> T%d", e.from, e.dep, e.to))
}

// writes returns the versions transaction t wrote.
func (c *checker) writes(t int32) []int32 {
	var out []int32
	keys := c.keysOf(int(t))
	for i, o := range c.txns[t].Ops {
		if o.Type != OpRead {
			v, _ := c.version(keys[i], o.Value)
			out = append(out, v)
		}
	}
	return out
}

// directlyBefore reports whether version a directly precedes version b in
// their key's order.
func (c *checker) directlyBefore(a, b int32) bool {
	k := &c.keys[c.vers[b].key]
	if c.vers[a].key != c.vers[b].key {
		return false
	}
	if k.kind == registerKey {
		return slices.Contains(c.succ[a], b)
	}
	i := int32(len(k.order))
	if c.vers[b].ordered {
		i = c.vers[b].pos
	}
	return c.lastList(c.vers[b].key, i) == a
}

// cycleAnomaly turns a cycle found into its anomaly, explained step by
// step.
func (c *checker) cycleAnomaly(cycle []cycleEdge) Anomaly {
	a := Anomaly{Type: classify(cycle)}
	names := make([]string, len(cycle)+1)
	for i, e := range cycle {
		a.Txns = append(a.Txns, int(e.from))
		a.Steps = append(a.Steps, Step{From: int(e.from), To: int(e.to), Dep: e.dep,
			Text: fmt.Sprintf("T%d < T%d: %s", e.from, e.to, c.why(e))})
		names[i] = fmt.Sprintf("T%d", e.from)
	}
	names[len(cycle)] = names[0]
	a.Text = strings.Join(names, " → ")
	return a
}
