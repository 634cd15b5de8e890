package txncheck

import (
	"fmt"
	"slices"
	"strings"
)

// orderRegisters builds what is known of each register's version order,
// as a graph of versions: the installed order, write-follows-read (a
// committed transaction that read version x and then wrote y puts x before
// y) and, if the options say so, each process's order or the real-time
// order of the transactions on the key. The initial state precedes every
// version. Versions that aborted or that their writer overwrote are no
// one's installed version and stay out. A key whose sources contradict
// each other (a cycle of versions) is reported as cyclic-versions, and
// gives no ww or rw edges.
func (c *checker) orderRegisters() {
	if !slices.ContainsFunc(c.keys, func(k keyInfo) bool { return k.kind == registerKey }) {
		return
	}
	nv := int32(len(c.vers))
	var edges [][2]int32 // by node: a version, or nv+key for a key's initial state
	link := func(a, b int32) {
		if a != b {
			edges = append(edges, [2]int32{a, b})
		}
	}
	node := func(key, v int32) int32 {
		if v == initial {
			return nv + key
		}
		return v
	}
	for v := range c.vers {
		if ki := c.vers[v].key; c.keys[ki].kind == registerKey && c.installs(int32(v)) {
			link(nv+ki, int32(v))
		}
	}
	c.installedRegisters(link)
	if !c.opts.NoWriteFollowsRead || c.opts.SequentialKeys || c.opts.LinearizableKeys {
		for _, r := range c.reads {
			if c.keys[r.key].kind != registerKey || r.at == unordered || r.at >= 0 && !c.installs(r.at) {
				continue
			}
			if w := c.finalWrite(r.txn, r.key); w >= 0 {
				link(node(r.key, r.at), w)
			}
		}
	}
	if c.opts.SequentialKeys || c.opts.LinearizableKeys {
		c.registerSessions(func(key, a, b int32) { link(node(key, a), node(key, b)) })
	}

	g := buildGraph(int(nv)+len(c.keys), func(emit func(from, to int32, d Dep)) {
		for _, e := range edges {
			emit(e[0], e[1], WW)
		}
	})
	_, comps := g.sccs()
	for _, members := range comps {
		c.cyclicVersions(members)
	}
	c.succ = make([][]int32, nv)
	for u := range int(nv) + len(c.keys) {
		for i := g.off[u]; i < g.off[u+1]; i++ {
			v := g.to[i]
			switch {
			case v >= nv || c.keys[c.vers[v].key].cyclic: // an edge into an initial state is on a cycle
			case u >= int(nv):
				k := &c.keys[c.vers[v].key]
				k.roots = append(k.roots, v)
			default:
				c.succ[u] = append(c.succ[u], v)
			}
		}
	}
	// A root that another version precedes follows the initial state, but
	// not directly.
	preceded := make([]bool, nv)
	for _, next := range c.succ {
		for _, v := range next {
			preceded[v] = true
		}
	}
	for ki := range c.keys {
		k := &c.keys[ki]
		k.roots = slices.DeleteFunc(k.roots, func(v int32) bool { return preceded[v] })
	}
}

// installedRegisters links the versions of each register in the order the
// system installed them, and reports a committed version installed
// directly on an aborted one.
func (c *checker) installedRegisters(link func(a, b int32)) {
	for ki := range c.keys {
		k := &c.keys[ki]
		if k.kind != registerKey {
			continue
		}
		prev, last := int32(-1), int32(-1)
		for _, value := range c.installed[k.key] {
			v, ok := c.version(int32(ki), value)
			if !ok {
				c.garbage(-1, k.key, value, c.installed[k.key])
				continue
			}
			if last >= 0 && c.vers[last].failed && !c.vers[v].failed {
				c.dirtyUpdate(last, v, "the installed order has")
			}
			last = v
			c.vers[v].seen = true
			if !c.installs(v) {
				continue
			}
			if prev >= 0 {
				link(prev, v)
			}
			prev = v
		}
	}
}

// finalWrite returns the version transaction t last wrote to register key
// ki, or -1.
func (c *checker) finalWrite(t, ki int32) int32 {
	keys := c.keysOf(int(t))
	ops := c.txns[t].Ops
	for j := len(ops) - 1; j >= 0; j-- {
		if keys[j] == ki && ops[j].Type == OpWrite {
			v, _ := c.version(ki, ops[j].Value)
			return v
		}
	}
	return -1
}

// A touch is what one committed transaction saw and left of a register:
// the version it first saw or wrote, and the one it last saw or wrote.
type touch struct {
	txn, key    int32
	first, last int32 // versions, or initial
}

// touches returns every committed transaction's touches of registers, in
// transaction order. A read that fits no version order (garbage, aborted)
// says nothing.
func (c *checker) touches() []touch {
	var out []touch
	for _, r := range c.reads {
		if c.keys[r.key].kind != registerKey || r.at == unordered || r.at >= 0 && !c.installs(r.at) {
			continue
		}
		t := touch{txn: r.txn, key: r.key, first: r.at, last: r.at}
		if w := c.finalWrite(r.txn, r.key); w >= 0 {
			t.last = w
		}
		out = append(out, t)
	}
	for v := range c.vers {
		ver := &c.vers[v]
		if c.keys[ver.key].kind != registerKey || ver.interm || c.txns[ver.txn].Outcome != OK || c.readsFirst(ver.txn, ver.key) {
			continue
		}
		out = append(out, touch{txn: ver.txn, key: ver.key, first: int32(v), last: int32(v)})
	}
	slices.SortFunc(out, func(a, b touch) int { return int(a.txn - b.txn) })
	return out
}

// readsFirst reports whether transaction t's first op on key ki is a read.
func (c *checker) readsFirst(t, ki int32) bool {
	keys := c.keysOf(int(t))
	i := slices.Index(keys, ki)
	return i >= 0 && c.txns[t].Ops[i].Type == OpRead
}

// registerSessions links, under the sequential-keys option, the version
// each process's transaction last saw or wrote of a key to the one its
// next transaction on the key first saw or wrote; under the
// linearizable-keys option, it does so for transactions ordered in real
// time.
func (c *checker) registerSessions(link func(key, a, b int32)) {
	touches := c.touches()
	byTxn := make(map[int32][]touch)
	for _, t := range touches {
		byTxn[t.txn] = append(byTxn[t.txn], t)
	}
	if c.opts.SequentialKeys {
		last := make(map[[2]int32]int32) // (process, key) -> the last version seen
		for _, id := range c.byProcess {
			for _, t := range byTxn[id] {
				pk := [2]int32{int32(c.txns[id].Process), t.key}
				if v, ok := last[pk]; ok {
					link(t.key, v, t.first)
				}
				last[pk] = t.last
			}
		}
	}
	if c.opts.LinearizableKeys {
		byKey := make(map[int32][]int32) // key -> its touches' indexes, by transaction
		for i, t := range touches {
			byKey[t.key] = append(byKey[t.key], int32(i))
		}
		for _, idx := range byKey {
			ids := make([]int32, len(idx))
			for i, j := range idx {
				ids[i] = touches[j].txn
			}
			f := c.realtimeOrder(ids)
			f.each(func(a, b int32) {
				link(touches[idx[a]].key, touches[idx[a]].last, touches[idx[b]].first)
			})
		}
	}
}

// cyclicVersions reports a cycle of register versions (version graph
// nodes).
func (c *checker) cyclicVersions(members []int32) {
	nv := int32(len(c.vers))
	var names []string
	var txns []int
	ki := int32(-1)
	for _, u := range members {
		if u >= nv {
			ki = u - nv
			names = append(names, "the initial state")
			continue
		}
		ki = c.vers[u].key
		names = append(names, fmt.Sprint(c.txns[c.vers[u].txn].Ops[c.vers[u].op].Value))
		txns = append(txns, int(c.vers[u].txn))
	}
	k := &c.keys[ki]
	k.cyclic = true
	c.add(Anomaly{Type: CyclicVersions, Txns: txns, Key: k.key,
		Text: fmt.Sprintf("key %d's versions %s each precede another (by %s)", k.key, strings.Join(names, ", "), c.versionSources())})
}

// versionSources names the sources of register version orders in use.
func (c *checker) versionSources() string {
	s := []string{"the installed order"}
	if !c.opts.NoWriteFollowsRead {
		s = append(s, "write-follows-read")
	}
	if c.opts.SequentialKeys {
		s = append(s, "sequential keys")
	}
	if c.opts.LinearizableKeys {
		s = append(s, "linearizable keys")
	}
	return strings.Join(s, ", ")
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
	c.vers[v].seen = true
	c.intermediate(id, o, v)
	return v
}
