package txncheck

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// A Dep is a reason one transaction precedes another in a cycle, T1 < T2;
// as a bit set (in the graph), a set of them.
type Dep uint8

// The reasons.
const (
	WW   Dep = 1 << iota // T2 wrote the version after T1's
	WR                   // T2 read T1's version
	RW                   // T1 read a version before T2's: an anti-dependency
	Proc                 // T1 completed before T2 began, on the same process
	RT                   // T1 completed before T2 began (real time)
)

// String returns "ww", "wr", "rw", "process" or "realtime".
func (d Dep) String() string {
	switch d {
	case WW:
		return "ww"
	case WR:
		return "wr"
	case RW:
		return "rw"
	case Proc:
		return "process"
	case RT:
		return "realtime"
	}
	return fmt.Sprintf("Dep(%#x)", uint8(d))
}

// A graph is the transactions' dependency graph in compressed rows: the
// edges out of node u are to[off[u]:off[u+1]], each with its reasons.
type graph struct {
	off  []int32
	to   []int32
	deps []Dep
}

// An emitter produces edges, calling emit once per edge.
type emitter func(emit func(from, to int32, d Dep))

// buildGraph builds the graph of n nodes from the edges the emitter
// produces (it runs twice: to count, then to fill), merging parallel edges
// and dropping self-loops.
func buildGraph(n int, edges emitter) *graph {
	g := &graph{off: make([]int32, n+1)}
	edges(func(from, to int32, _ Dep) {
		if from != to {
			g.off[from+1]++
		}
	})
	for u := range n {
		g.off[u+1] += g.off[u]
	}
	g.to = make([]int32, g.off[n])
	g.deps = make([]Dep, g.off[n])
	next := slices.Clone(g.off[:n])
	edges(func(from, to int32, d Dep) {
		if from != to {
			g.to[next[from]], g.deps[next[from]] = to, d
			next[from]++
		}
	})
	// Merge parallel edges: last[v] is where u's edge to v went.
	last := next // reuse: only entries for u's targets are read
	for i := range last {
		last[i] = -1
	}
	w := int32(0)
	for u := range n {
		start := w
		for i := g.off[u]; i < g.off[u+1]; i++ {
			v := g.to[i]
			if j := last[v]; j >= start {
				g.deps[j] |= g.deps[i]
				continue
			}
			last[v] = w
			g.to[w], g.deps[w] = v, g.deps[i]
			w++
		}
		g.off[u] = start
	}
	g.off[n] = w
	g.to, g.deps = g.to[:w:w], g.deps[:w:w]
	for i, d := range g.deps {
		if d&Proc != 0 {
			g.deps[i] = d &^ RT // a process edge says more than a real-time one
		}
	}
	return g
}

// depEdges emits the ww, wr and rw edges the version orders imply.
func (c *checker) depEdges(emit func(from, to int32, d Dep)) {
	for ki := range c.keys {
		k := &c.keys[ki]
		if k.kind != listKey {
			continue
		}
		prev := int32(-1)
		for _, v := range k.order {
			if v < 0 || c.vers[v].failed {
				continue
			}
			if prev >= 0 {
				emit(prev, c.vers[v].txn, WW)
			}
			prev = c.vers[v].txn
		}
		for _, u := range k.unread {
			if prev >= 0 {
				emit(prev, c.vers[u].txn, WW)
			}
		}
	}
	for a, next := range c.succ {
		for _, b := range next {
			emit(c.vers[a].txn, c.vers[b].txn, WW)
		}
	}
	for _, r := range c.reads {
		if r.at == unordered {
			continue
		}
		if c.keys[r.key].kind == listKey {
			if v := c.lastList(r.key, r.at); v >= 0 {
				emit(c.vers[v].txn, r.txn, WR)
			}
			if v := c.nextList(r.key, r.at); v >= 0 {
				emit(r.txn, c.vers[v].txn, RW)
			} else {
				for _, u := range c.keys[r.key].unread {
					emit(r.txn, c.vers[u].txn, RW)
				}
			}
			continue
		}
		if r.at >= 0 {
			emit(c.vers[r.at].txn, r.txn, WR)
		}
		for _, v := range c.nextRegister(r.key, r.at) {
			emit(r.txn, c.vers[v].txn, RW)
		}
	}
}

// nextList returns the first committed (or possibly committed) version of
// list key after its first n elements, or -1: if -1, the key's unread
// appends follow.
func (c *checker) nextList(key, n int32) int32 {
	for _, v := range c.keys[key].order[n:] {
		if v >= 0 && !c.vers[v].failed {
			return v
		}
	}
	return -1
}

// orderProcesses sorts the transactions of each process by invocation and
// checks that a process ran one at a time: a transaction that completed did
// so before its process began the next one.
func (c *checker) orderProcesses() error {
	bucket := make(map[int]int32) // process -> its index, by first appearance
	var counts []int32
	for _, t := range c.txns {
		b, ok := bucket[t.Process]
		if !ok {
			b = int32(len(counts))
			bucket[t.Process] = b
			counts = append(counts, 0)
		}
		counts[b]++
	}
	start := make([]int32, len(counts)+1)
	for b, n := range counts {
		start[b+1] = start[b] + n
	}
	c.byProcess = make([]int32, len(c.txns))
	next := slices.Clone(start)
	for i, t := range c.txns {
		b := bucket[t.Process]
		c.byProcess[next[b]] = int32(i)
		next[b]++
	}
	for b := range counts {
		c.sortByInvoke(c.byProcess[start[b]:start[b+1]])
	}
	for i := 1; i < len(c.byProcess); i++ {
		a, b := c.byProcess[i-1], c.byProcess[i]
		ta, tb := &c.txns[a], &c.txns[b]
		if ta.Process == tb.Process && ta.Outcome != Unknown && ta.Complete > tb.Invoke {
			return fmt.Errorf("txncheck: process %d ran T%d (%v–%v) and T%d (from %v) at once; a process runs one transaction at a time", ta.Process, a, ta.Invoke, ta.Complete, b, tb.Invoke)
		}
	}
	return nil
}

// sortByInvoke sorts transactions by invocation time, stably; a recorded
// history is sorted already.
func (c *checker) sortByInvoke(ids []int32) {
	by := func(a, b int32) int { return cmp.Compare(c.txns[a].Invoke, c.txns[b].Invoke) }
	if !slices.IsSortedFunc(ids, by) {
		slices.SortStableFunc(ids, by)
	}
}

// procEdges emits the process edges: from each committed transaction to
// every later one of its process up to and including the next committed
// one. (A transaction of unknown outcome may commit at any time after its
// invocation, even after its process moved on: no edge leaves it.)
func (c *checker) procEdges(emit func(from, to int32, d Dep)) {
	last := int32(-1)
	for i, t := range c.byProcess {
		if i > 0 && c.txns[c.byProcess[i-1]].Process != c.txns[t].Process {
			last = -1
		}
		switch c.txns[t].Outcome {
		case Fail:
			continue
		case OK:
			if last >= 0 {
				emit(last, t, Proc)
			}
			last = t
		default:
			if last >= 0 {
				emit(last, t, Proc)
			}
		}
	}
}

// orderRealtime finds, for each transaction, the committed transactions
// that completed before it began, keeping only a frontier of them (see
// realtimeOrder).
func (c *checker) orderRealtime() {
	ids := make([]int32, 0, len(c.txns))
	for i, t := range c.txns {
		if t.Outcome != Fail {
			ids = append(ids, int32(i))
		}
	}
	c.rt = c.realtimeOrder(ids)
}

// A frontier is the real-time order of some transactions, reduced: the
// transactions ids[preds[start[i]:start[i]+count[i]]] completed before
// ids[i] began, and are those of them not known to precede another.
type frontier struct {
	ids, start, count, preds []int32
}

// each calls edge(a, b) for each transaction b (an index into ids) and
// each a on its frontier.
func (f *frontier) each(edge func(a, b int32)) {
	for b := range f.start {
		for _, a := range f.preds[f.start[b] : f.start[b]+f.count[b]] {
			edge(a, int32(b))
		}
	}
}

// realtimeOrder returns the frontier of each transaction of ids: the
// committed transactions of ids that completed before it began, not
// already known to precede another such one. The frontier holds
// transactions that overlap in time, so it is no larger than the number of
// transactions running at once, and its edges are a near-linear set with
// the same transitive closure as the real-time order. A transaction that
// completes at the very instant another begins does not precede it.
func (c *checker) realtimeOrder(ids []int32) frontier {
	type event struct {
		at time.Duration
		i  int32 // index into ids
	}
	invokes := make([]event, 0, len(ids))
	completes := make([]event, 0, len(ids))
	for i, id := range ids {
		t := &c.txns[id]
		invokes = append(invokes, event{t.Invoke, int32(i)})
		if t.Outcome == OK {
			completes = append(completes, event{t.Complete, int32(i)})
		}
	}
	by := func(a, b event) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.i, b.i)) }
	for _, events := range [][]event{invokes, completes} {
		if !slices.IsSortedFunc(events, by) {
			slices.SortFunc(events, by)
		}
	}
	f := frontier{ids: ids, start: make([]int32, len(ids)), count: make([]int32, len(ids)), preds: make([]int32, 0, 2*len(ids))}
	var current []int32
	for i, j := 0, 0; i < len(invokes); {
		if j < len(completes) && completes[j].at < invokes[i].at {
			t := completes[j].i
			j++
			seen := f.preds[f.start[t] : f.start[t]+f.count[t]]
			current = slices.DeleteFunc(current, func(x int32) bool { return slices.Contains(seen, x) })
			current = append(current, t)
			continue
		}
		t := invokes[i].i
		i++
		f.start[t], f.count[t] = int32(len(f.preds)), int32(len(current))
		f.preds = append(f.preds, current...)
	}
	return f
}

// emitRealtime emits the real-time edges orderRealtime found.
func (c *checker) emitRealtime(emit func(from, to int32, d Dep)) {
	c.rt.each(func(a, b int32) { emit(c.rt.ids[a], c.rt.ids[b], RT) })
}
