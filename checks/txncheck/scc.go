package txncheck

import "slices"

// sccs returns the graph's strongly connected components of two nodes or
// more, each sorted, in order of their smallest node, and comp[u], the
// index of u's component or -1. It is Tarjan's algorithm with an explicit
// stack, so that a long path cannot overflow the goroutine's.
func (g *graph) sccs() (comp []int32, comps [][]int32) {
	n := len(g.off) - 1
	index := make([]int32, n) // 0: not visited yet
	low := make([]int32, n)
	onStack := make([]bool, n)
	comp = make([]int32, n)
	var stack []int32
	type frame struct{ u, next int32 }
	var calls []frame
	counter := int32(0)
	visit := func(u int32) {
		counter++
		index[u], low[u] = counter, counter
		stack = append(stack, u)
		onStack[u] = true
		calls = append(calls, frame{u, g.off[u]})
	}
	for s := range int32(n) {
		if index[s] != 0 {
			continue
		}
		visit(s)
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			u := f.u
			if f.next < g.off[u+1] {
				v := g.to[f.next]
				f.next++
				if index[v] == 0 {
					visit(v)
				} else if onStack[v] {
					low[u] = min(low[u], index[v])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].u
				low[p] = min(low[p], low[u])
			}
			if low[u] != index[u] {
				continue
			}
			i := len(stack) - 1
			for stack[i] != u {
				i--
			}
			members := stack[i:]
			id := int32(-1)
			if len(members) > 1 {
				id = int32(len(comps))
				comps = append(comps, slices.Clone(members))
			}
			for _, v := range members {
				onStack[v] = false
				comp[v] = id
			}
			stack = stack[:i]
		}
	}
	for _, c := range comps {
		slices.Sort(c)
	}
	slices.SortFunc(comps, func(a, b []int32) int { return int(a[0] - b[0]) })
	for i, c := range comps {
		for _, v := range c {
			comp[v] = int32(i)
		}
	}
	return comp, comps
}
