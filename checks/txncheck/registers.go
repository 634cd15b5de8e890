package txncheck

import (
	"slices"
)

// orderRegisters builds what is known of each register's version order,
// as a graph of versions: the installed order, and write-follows-read (a
// committed transaction that read version x and then wrote y puts x before
// y). The initial state precedes every version. Versions that aborted or
// that their writer overwrote are no one's installed version and stay out.
func (c *checker) orderRegisters() {
	has := false
	for _, k := range c.keys {
		has = has || k.kind == registerKey
	}
	if !has {
		return
	}
	c.succ = make([][]int32, len(c.vers))
	hasPred := make([]bool, len(c.vers))
	link := func(a, b int32) {
		if a != b && !slices.Contains(c.succ[a], b) {
			c.succ[a] = append(c.succ[a], b)
			hasPred[b] = true
		}
	}
	for ki := range c.keys {
		k := &c.keys[ki]
		if k.kind != registerKey {
			continue
		}
		prev := int32(-1)
		for _, value := range c.installed[k.key] {
			v, ok := c.version(int32(ki), value)
			if !ok {
				c.garbage(-1, k.key, value, c.installed[k.key])
				continue
			}
			if !c.installs(v) {
				continue
			}
			if prev >= 0 {
				link(prev, v)
			}
			prev = v
		}
	}
	for _, r := range c.reads {
		if c.keys[r.key].kind != registerKey || r.at < 0 || !c.installs(r.at) {
			continue
		}
		ops := c.txns[r.txn].Ops
		for j := int(r.op) + 1; j < len(ops); j++ {
			if o := ops[j]; o.Key == ops[r.op].Key && o.Type == OpWrite && !writesAgain(ops, j) {
				y, _ := c.version(r.key, o.Value)
				link(r.at, y)
			}
		}
	}
	for v := range c.vers {
		if c.keys[c.vers[v].key].kind == registerKey && c.installs(int32(v)) && !hasPred[v] {
			k := &c.keys[c.vers[v].key]
			k.roots = append(k.roots, int32(v))
		}
	}
}

// installs reports whether version v is one its writer may have installed:
// it did not abort and did not overwrite it.
func (c *checker) installs(v int32) bool { return !c.vers[v].failed && !c.vers[v].interm }

// nextRegister returns the versions known to follow register version v
// (or initial) directly.
func (c *checker) nextRegister(key, v int32) []int32 {
	if v == initial {
		return c.keys[key].roots
	}
	return c.succ[v]
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
