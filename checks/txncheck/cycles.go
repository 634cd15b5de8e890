package txncheck

import "slices"

// A spec describes the cycles of one anomaly type, for the search: rotated
// so that they begin with an edge of kind start (one any such cycle has),
// the other edges of kinds rest, under a rule for rw edges.
type spec struct {
	anomaly AnomalyType
	start   Dep
	rest    Dep
	rule    rwRule
	need    Dep // a kind the cycle must use (Proc or RT), or 0

	// table holds the transitions, by state<<5 | the edge's reasons, and
	// accept the states that close a cycle of the shape, a bit each.
	table  [numStates << 5]transitions
	accept uint16
}

// transitions are the ways to take one edge from one state.
type transitions struct {
	n uint8
	t [2]transition
}

// newSpec returns s with its tables filled in.
func newSpec(s spec) *spec {
	for st := range uint8(numStates) {
		for d := range Dep(1 << 5) {
			ts := &s.table[int(st)<<5|int(d)]
			ts.t, ts.n = s.transitions(st, d&s.rest)
		}
		if s.accepts(st) {
			s.accept |= 1 << st
		}
	}
	return &s
}

// An rwRule constrains a cycle's rw edges, when rest allows them.
type rwRule uint8

const (
	anyRW         rwRule = iota // no constraint
	nonadjacentRW               // at least two rw edges, no two adjacent (start is one)
	adjacentRW                  // the edge after start is rw too (start is rw)
)

// The search's states: what the path so far means for the rule.
const (
	lastRW   = 1 << iota // the last edge was rw
	moreRW               // an rw edge other than start was taken
	haveNeed             // an edge of kind need was taken
	pending              // the next edge must be rw
	numStates
)

// cycleSpecs returns the searches for the proscribed cycles, most
// severe first: the plain cycles, then those that need process order, then
// those that need real-time order.
func cycleSpecs(proscribed anomalySet) []*spec {
	base := []spec{
		{anomaly: G0, start: WW, rest: WW},
		{anomaly: G1c, start: WR, rest: WW | WR},
		{anomaly: GSingle, start: RW, rest: WW | WR},
		{anomaly: GNonadjacent, start: RW, rest: WW | WR | RW, rule: nonadjacentRW},
		{anomaly: G2Item, start: RW, rest: WW | WR | RW, rule: adjacentRW},
	}
	var out []*spec
	for _, extra := range []struct {
		offset AnomalyType
		need   Dep
		rest   Dep
	}{{0, 0, 0}, {G0Process - G0, Proc, Proc}, {G0Realtime - G0, RT, Proc | RT}} {
		for _, s := range base {
			s.anomaly += extra.offset
			s.rest |= extra.rest
			s.need = extra.need
			if s.anomaly.cycleBase() == G0 && s.need != 0 {
				s.start = s.need // G0-process and G0-realtime have no wr or rw to start at
			}
			if proscribed.has(s.anomaly) {
				out = append(out, newSpec(s))
			}
		}
	}
	return out
}

// initial returns the state after the start edge.
func (s *spec) initial() uint8 {
	st := uint8(0)
	if s.start == RW {
		st |= lastRW
	}
	if s.rule == adjacentRW {
		st |= pending
	}
	if s.need != 0 && s.start == s.need {
		st |= haveNeed
	}
	return st
}

// accepts reports whether a path in state st that closes the cycle has the
// anomaly's shape. (A path never closes while pending: only an rw edge may
// be taken then, and taking it clears pending.)
func (s *spec) accepts(st uint8) bool {
	switch {
	case s.need != 0 && st&haveNeed == 0:
		return false
	case s.rule == nonadjacentRW:
		return st&lastRW == 0 && st&moreRW != 0
	}
	return true
}

// A cycleEdge is one edge of a cycle found, with the reason it stands for.
type cycleEdge struct {
	from, to int32
	dep      Dep
}

// A searcher finds shortest cycles of a given shape inside one strongly
// connected component, by breadth-first search over (node, state) pairs,
// on a copy of the component's own edges with nodes numbered from 0.
type searcher struct {
	g       *graph
	comp    []int32 // each node's component
	local   []int32 // each node's index in its component
	members []int32 // the component being searched, by local index

	off, to []int32 // the component's edges, by local index
	deps    []Dep

	seen   []uint32 // by local*numStates+state: the search that reached it
	stamp  uint32
	parent []int32 // by code: the code it was reached from, -1 from the start
	via    []Dep   // by code: the edge kind it was reached by
	queue  []int32

	steps, budget int // edges examined, and how many the search may examine
	left          int // what all the searches may still examine
}

// newSearcher returns a searcher over g's components.
func newSearcher(g *graph, comp []int32, comps [][]int32) *searcher {
	s := &searcher{g: g, comp: comp, local: make([]int32, len(comp)), left: totalBudget(len(g.to))}
	for _, members := range comps {
		for i, v := range members {
			s.local[v] = int32(i)
		}
	}
	return s
}

// enter prepares to search component c.
func (s *searcher) enter(c int32, members []int32) {
	s.members = members
	s.off, s.to, s.deps = s.off[:0], s.to[:0], s.deps[:0]
	for _, u := range members {
		s.off = append(s.off, int32(len(s.to)))
		for i := s.g.off[u]; i < s.g.off[u+1]; i++ {
			if v := s.g.to[i]; s.comp[v] == c {
				s.to = append(s.to, s.local[v])
				s.deps = append(s.deps, s.g.deps[i])
			}
		}
	}
	s.off = append(s.off, int32(len(s.to)))
	if n := len(members) * numStates; len(s.seen) < n {
		s.seen = make([]uint32, n)
		s.parent = make([]int32, n)
		s.via = make([]Dep, n)
		s.stamp = 0
	}
	s.budget = min(searchBudget(len(s.to)), s.left)
}

// searchBudget returns how many edges one search for a cycle of a given
// shape may examine in a component of the given number of edges: every
// start edge of a small component (an exhaustive search, which finds the
// shortest cycle), a pass or two of a large one. (A variable, for the
// test of running out.)
var searchBudget = func(edges int) int {
	return numStates * edges * min(edges, max(2, 1<<12/edges))
}

// totalBudget returns how many edges all the searches in a graph of the
// given number of edges may examine, so that a history broken everywhere
// still takes time linear in its size. Past it, each component gets one
// breadth-first search for any cycle.
func totalBudget(edges int) int { return 1<<21 + 16*edges }

// shortest returns a shortest cycle of the spec's shape in the component,
// or nil, and whether the search was exhaustive. A search that ran out of
// budget, or that found only closed walks that revisit a transaction,
// is not.
func (s *searcher) shortest(sp *spec) (best []cycleEdge, exact bool) {
	s.steps = 0
	defer func() { s.left -= min(s.steps, s.budget) }()
	exact = true
	for u := range int32(len(s.members)) {
		for i := s.off[u]; i < s.off[u+1]; i++ {
			if s.deps[i]&sp.start == 0 {
				continue
			}
			limit := len(best)
			if limit == 0 {
				limit = len(s.members) + 1
			}
			path, ok := s.bfs(sp, u, s.to[i], limit)
			if !ok {
				return best, false
			}
			if path == nil {
				continue
			}
			if !simple(path) {
				exact = false
				continue
			}
			best = path
			if len(best) == 2 {
				return best, exact
			}
		}
	}
	return best, exact
}

// bfs searches for a path from v back to u (local indexes) that, after the
// edge u → v of kind sp.start, closes a cycle of the spec's shape with
// fewer than limit edges. It returns the cycle, or nil; false if it ran
// out of budget.
func (s *searcher) bfs(sp *spec, u, v int32, limit int) ([]cycleEdge, bool) {
	s.stamp++
	s.queue = s.queue[:0]
	code := v*numStates + int32(sp.initial())
	s.seen[code], s.parent[code] = s.stamp, -1
	s.queue = append(s.queue, code)
	for head, length := 0, 2; length < limit && head < len(s.queue); length++ {
		tail := len(s.queue)
		for ; head < tail; head++ {
			from := s.queue[head]
			x, st := from/numStates, from%numStates
			for i := s.off[x]; i < s.off[x+1]; i++ {
				if s.steps++; s.steps > s.budget {
					return nil, false
				}
				y := s.to[i]
				ts := &sp.table[st<<5|int32(s.deps[i]&sp.rest)]
				for _, t := range ts.t[:ts.n] {
					if y == u {
						if sp.accept&(1<<t.state) != 0 {
							return s.path(sp, u, v, from, t.dep), true
						}
						continue
					}
					to := y*numStates + int32(t.state)
					if s.seen[to] != s.stamp {
						s.seen[to], s.parent[to], s.via[to] = s.stamp, from, t.dep
						s.queue = append(s.queue, to)
					}
				}
			}
		}
	}
	return nil, true
}

// A transition is one way to take an edge: as a kind, into a state.
type transition struct {
	dep   Dep
	state uint8
}

// transitions returns the ways a path in state st may take an edge with
// reasons d (already restricted to sp.rest): at most one as rw, and one
// as the most telling of its other kinds.
func (sp *spec) transitions(st uint8, d Dep) (out [2]transition, n uint8) {
	if other := d &^ RW; other != 0 && st&pending == 0 {
		k := pick(other)
		if sp.need != 0 && st&haveNeed == 0 && other&sp.need != 0 {
			k = sp.need
		}
		next := st &^ lastRW
		if k == sp.need {
			next |= haveNeed
		}
		out[n] = transition{k, next}
		n++
	}
	if d&RW != 0 {
		switch {
		case sp.rule == anyRW:
			out[n] = transition{RW, st}
			n++
		case sp.rule == nonadjacentRW && st&lastRW == 0:
			out[n] = transition{RW, st | lastRW | moreRW}
			n++
		case sp.rule == adjacentRW:
			out[n] = transition{RW, st &^ pending}
			n++
		}
	}
	return out, n
}

// pick returns the first of ww, wr, process and real-time order in d.
func pick(d Dep) Dep {
	for _, k := range []Dep{WW, WR, Proc, RT} {
		if d&k != 0 {
			return k
		}
	}
	return 0
}

// path rebuilds the cycle: u → v, then v … to the node at code last, then
// back to u by an edge of kind closing (local indexes in, transactions
// out).
func (s *searcher) path(sp *spec, u, v, last int32, closing Dep) []cycleEdge {
	var back []cycleEdge
	to := s.members[u]
	dep := closing
	for code := last; ; code = s.parent[code] {
		x := s.members[code/numStates]
		back = append(back, cycleEdge{x, to, dep})
		if s.parent[code] < 0 {
			break
		}
		to, dep = x, s.via[code]
	}
	out := []cycleEdge{{s.members[u], s.members[v], sp.start}}
	for i := len(back) - 1; i >= 0; i-- {
		out = append(out, back[i])
	}
	return out
}

// simple reports whether a cycle visits each transaction once.
func simple(cycle []cycleEdge) bool {
	seen := make(map[int32]bool, len(cycle))
	for _, e := range cycle {
		if seen[e.from] {
			return false
		}
		seen[e.from] = true
	}
	return true
}

// anyCycle returns a shortest cycle through the component's first edge,
// whatever its shape.
func (s *searcher) anyCycle(rest Dep) []cycleEdge {
	sp := newSpec(spec{start: firstDep(s.deps[0]), rest: rest})
	s.budget = int(^uint(0) >> 1)
	path, _ := s.bfs(sp, 0, s.to[0], len(s.members)+1)
	return path
}

// firstDep returns the most telling reason in d: ww, wr, process,
// real-time, then rw.
func firstDep(d Dep) Dep {
	if k := pick(d); k != 0 {
		return k
	}
	return d & RW
}

// collapse merges each run of process and real-time edges into one edge
// (both orders are transitive), rotated to begin with a dependency edge.
func collapse(cycle []cycleEdge) []cycleEdge {
	order := func(d Dep) bool { return d == Proc || d == RT }
	first := slices.IndexFunc(cycle, func(e cycleEdge) bool { return !order(e.dep) })
	cycle = append(slices.Clone(cycle[first:]), cycle[:first]...)
	var out []cycleEdge
	for _, e := range cycle {
		if n := len(out); n > 0 && order(e.dep) && order(out[n-1].dep) {
			out[n-1].to = e.to
			out[n-1].dep |= e.dep
			continue
		}
		out = append(out, e)
	}
	for i := range out {
		if out[i].dep&RT != 0 {
			out[i].dep = RT
		}
	}
	// Begin at the smallest transaction, for a canonical form.
	least := 0
	for i, e := range out {
		if e.from < out[least].from {
			least = i
		}
	}
	return append(out[least:], out[:least]...)
}

// classify names a cycle's anomaly from its edges.
func classify(cycle []cycleEdge) AnomalyType {
	rws, adjacent := 0, false
	var kinds Dep
	for i, e := range cycle {
		kinds |= e.dep
		if e.dep == RW {
			rws++
			adjacent = adjacent || cycle[(i+1)%len(cycle)].dep == RW
		}
	}
	var a AnomalyType
	switch {
	case rws == 0 && kinds&WR == 0:
		a = G0
	case rws == 0:
		a = G1c
	case rws == 1:
		a = GSingle
	case adjacent:
		a = G2Item
	default:
		a = GNonadjacent
	}
	switch {
	case kinds&RT != 0:
		a += G0Realtime - G0
	case kinds&Proc != 0:
		a += G0Process - G0
	}
	return a
}
