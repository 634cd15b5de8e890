package search

import (
	"math/rand/v2"

	"github.com/replab/replab/sim"
)

// batch is how many parents (BFS) or walks are run at once among the
// workers before their results are merged, in order, so that a search's
// result does not depend on the number of workers.
const batch = 64

// child is one state BFS reached from a parent.
type child struct {
	path Path
	err  error
	goal bool
	hash uint64
}

// expand replays parent once for each option its state offers, and
// returns the children; err is a replay that failed (a bug of the search
// or a system that is not a function of its seed and path).
func expand(sc Scenario, o *Options, parent Path) ([]child, error) {
	r, err := replay(sc, o, parent, false)
	if err != nil {
		return nil, err
	}
	opts := r.options()
	n := len(opts)
	kids := make([]child, 0, n)
	for i := range n {
		if o.InOrder && i > 0 && opts[i].event() {
			continue // in order, only the first event fires (events come first)
		}
		if len(kids) > 0 {
			if r, err = replay(sc, o, parent, false); err != nil {
				return nil, err
			}
			r.options()
		}
		r.take(i)
		k := child{path: append(append(make(Path, 0, len(parent)+1), parent...), i), err: r.err, goal: r.goal()}
		if !o.NoHash {
			k.hash = r.stateHash()
		}
		kids = append(kids, k)
	}
	return kids, nil
}

// bfs explores level by level from the initial state.
func bfs(sc Scenario, o *Options, clock *stopwatch) (Result, error) {
	var res Result
	root, err := start(sc, o, false)
	if err != nil {
		return res, err
	}
	res.States, res.Schedules = 1, 1
	if root.err != nil {
		res.Violation = root.found(nil, root.err)
		return res, nil
	}
	if root.goal() {
		res.Goal = root.found(nil, nil)
		if o.StopAtGoal {
			return res, nil
		}
	}
	visited := map[uint64]struct{}{root.stateHash(): {}}
	frontier := []Path{{}}
	for depth := 0; depth < o.Depth && len(frontier) > 0; depth++ {
		var next []Path
		for lo := 0; lo < len(frontier); lo += batch {
			parents := frontier[lo:min(lo+batch, len(frontier))]
			kids := make([][]child, len(parents))
			errs := make([]error, len(parents))
			parallel(o.Workers, len(parents), func(j int) { kids[j], errs[j] = expand(sc, o, parents[j]) })
			for j := range parents {
				if errs[j] != nil {
					return res, errs[j]
				}
				res.Schedules += len(kids[j])
				for _, k := range kids[j] {
					res.States++
					res.MaxDepth = depth + 1
					if k.err != nil {
						res.Violation = &Found{Path: k.path, Err: k.err}
						res.Distinct = len(visited)
						return res, nil
					}
					if k.goal && res.Goal == nil {
						res.Goal = &Found{Path: k.path}
						if o.StopAtGoal {
							res.Distinct = len(visited)
							return res, nil
						}
					}
					if !o.NoHash {
						if _, seen := visited[k.hash]; seen {
							continue
						}
						visited[k.hash] = struct{}{}
					}
					next = append(next, k.path)
					if o.Budget > 0 && res.States >= o.Budget {
						res.Distinct = len(visited)
						return res, nil
					}
				}
			}
			if clock.expired() {
				res.Distinct = len(visited)
				return res, nil
			}
		}
		frontier = next
	}
	res.Distinct = len(visited)
	res.Complete = true
	return res, nil
}

// walked is what one random walk did.
type walked struct {
	path   Path
	states int
	hashes []uint64 // each state's hash, unless hashing is off
	covers []uint64 // guided: each state's cover digest
	err    error
	goalAt int // the steps to the first state where the goal held; -1: never
	fail   error
}

// walks runs random walks (DFS, PCT or guided), number k from seed (Seed,
// k), in batches, until the budget is spent or one breaks an invariant.
// Guided walks start from a schedule of the corpus: the schedules that
// first reached a digest of the nodes' state (cover) not seen before,
// kept as the batches are merged in order, so that the result does not
// depend on the number of workers.
func walks(sc Scenario, o *Options, clock *stopwatch) (res Result, err error) {
	visited := map[uint64]struct{}{}
	defer func() { res.Distinct = len(visited) }()
	corpus := []Path{{}}
	covered := map[uint64]struct{}{}
	for k := 0; ; k += batch {
		ws := make([]walked, batch)
		parallel(o.Workers, batch, func(j int) {
			var prefix Path
			if o.Strategy == Guided {
				prefix = pickPrefix(rand.New(rand.NewPCG(uint64(o.Seed), uint64(k+j)|1<<63)), corpus)
			}
			ws[j] = walk(sc, o, uint64(k+j), prefix)
		})
		before := res.States
		for _, w := range ws {
			if w.fail != nil {
				return res, w.fail
			}
			res.Schedules++
			res.States += w.states
			for _, h := range w.hashes {
				visited[h] = struct{}{}
			}
			for j, c := range w.covers {
				if _, seen := covered[c]; !seen {
					covered[c] = struct{}{}
					corpus = append(corpus, w.path[:j+1])
				}
			}
			res.MaxDepth = max(res.MaxDepth, len(w.path))
			if w.goalAt >= 0 && res.Goal == nil {
				res.Goal = &Found{Path: w.path[:w.goalAt]}
				if o.StopAtGoal {
					return res, nil
				}
			}
			if w.err != nil {
				res.Violation = &Found{Path: w.path, Err: w.err}
				return res, nil
			}
			if o.Budget > 0 && res.States >= o.Budget {
				return res, nil
			}
		}
		if clock.expired() || res.States == before { // out of time, or nothing to explore
			return res, nil
		}
	}
}

// pickPrefix picks the schedule a guided walk starts from: half the time
// one of the latest found (the last recentPrefixes), so that a walk that
// got somewhere new is followed up at once, else any.
func pickPrefix(rng *rand.Rand, corpus []Path) Path {
	if rng.IntN(2) == 0 {
		n := min(len(corpus), recentPrefixes)
		return corpus[len(corpus)-1-rng.IntN(n)]
	}
	return corpus[rng.IntN(len(corpus))]
}

// recentPrefixes is how many of the schedules found last a guided walk
// picks among, half the time.
const recentPrefixes = 64

// guidedSteps is how far a guided walk goes beyond the schedule it
// starts from.
const guidedSteps = 60

// Chances of a random walk's step being a fault, a drop or a duplicate,
// when the budget and the state allow one: the rest of the steps fire
// events. Each walk draws its chance of a fault uniformly below
// maxFaultChance (swarm testing: Groce, Zhang, Eide, Chen and Regehr, ISSTA
// 2012), so that some walks strike often, in quick succession (a crash
// right after a vote, a leader crashed before it replicates a write), and
// others let the system run long between faults.
const (
	maxFaultChance = 0.3
	dropChance     = 0.05
	dupChance      = 0.05
)

// walk runs random walk number k to the depth, or to a violation; a
// guided walk first replays prefix, then goes on at random.
func walk(sc Scenario, o *Options, k uint64, prefix Path) walked {
	w := walked{goalAt: -1}
	r, err := start(sc, o, false)
	if err != nil {
		w.fail = err
		return w
	}
	for _, i := range prefix {
		if r.err != nil {
			break
		}
		r.options()
		r.take(i)
		w.path = append(w.path, i)
		w.states++
		w.covers = append(w.covers, r.cover())
	}
	rng := rand.New(rand.NewPCG(uint64(o.Seed), k))
	var p *pct
	if o.Strategy == PCT {
		p = newPCT(rng, len(r.sys.World.Hosts())+1, o.D, o.Depth)
	}
	if r.goal() {
		w.goalAt = 0
	}
	fc := maxFaultChance * rng.Float64()
	acted := -1 // the host whose event fired last
	end := o.Depth
	if o.Strategy == Guided {
		end = min(end, len(w.path)+guidedSteps)
	}
	for step := len(w.path); step < end && r.err == nil; step++ {
		opts := r.options()
		if len(opts) == 0 {
			break
		}
		var events, drops, dups, faults []int
		for i, op := range opts {
			switch {
			case op.fault != nil:
				faults = append(faults, i)
			case op.fate == sim.Drop:
				drops = append(drops, i)
			case op.fate == sim.Duplicate:
				dups = append(dups, i)
			default:
				events = append(events, i)
			}
		}
		if o.InOrder && len(events) > 1 {
			events = events[:1]
		}
		var i int
		switch x := rng.Float64(); {
		case len(faults) > 0 && x < fc:
			i = crashPoint(rng, opts, faults, acted)
		case len(drops) > 0 && x < fc+dropChance:
			i = drops[rng.IntN(len(drops))]
		case len(dups) > 0 && x < fc+dropChance+dupChance:
			i = dups[rng.IntN(len(dups))]
		case len(events) == 0:
			i = rng.IntN(len(opts))
		case p != nil:
			i = p.pick(step, opts, events)
		default:
			i = events[rng.IntN(len(events))]
		}
		acted = actor(opts[i])
		r.take(i)
		w.path = append(w.path, i)
		w.states++
		if !o.NoHash {
			w.hashes = append(w.hashes, r.stateHash())
		}
		if o.Strategy == Guided {
			w.covers = append(w.covers, r.cover())
		}
		if w.goalAt < 0 && r.goal() {
			w.goalAt = len(w.path)
		}
	}
	w.err = r.err
	return w
}

// crashPoint picks one of the faults: half the time one that strikes the
// host that acted last (a crash right after it voted, or accepted a write,
// the crash points that FoundationDB's and ALICE's crash testing
// enumerate), if there is one; else any.
func crashPoint(rng *rand.Rand, opts []option, faults []int, acted int) int {
	if acted >= 0 && rng.IntN(2) == 0 {
		var at []int
		for _, i := range faults {
			if opts[i].fault.Host == acted {
				at = append(at, i)
			}
		}
		if len(at) > 0 {
			return at[rng.IntN(len(at))]
		}
	}
	return faults[rng.IntN(len(faults))]
}

// actor returns the world's index of the host that acts when op is taken:
// a message's receiver, another event's host, a fault's host; -1 for none.
func actor(op option) int {
	switch {
	case op.fault != nil:
		return op.fault.Host
	case op.choice.Message:
		return op.choice.Info.To
	}
	return op.choice.Host
}

// pct is PCT's scheduler for one walk: a priority per actor (each host,
// and the world for events of no host), and the steps at which the actor
// that runs drops below every other.
type pct struct {
	prio   []int
	change map[int]int // step → which change point (1..d-1)
	d      int
}

// newPCT draws the priorities of n actors, distinct and at least d, and
// d-1 change points among the steps 0..k-1.
func newPCT(rng *rand.Rand, n, d, k int) *pct {
	p := &pct{prio: make([]int, n), change: map[int]int{}, d: d}
	for i, x := range rng.Perm(n) {
		p.prio[i] = d + x
	}
	for j := 1; j < d && len(p.change) < k; j++ {
		for {
			s := rng.IntN(k)
			if _, taken := p.change[s]; !taken {
				p.change[s] = j
				break
			}
		}
	}
	return p
}

// actor returns the index of the actor an option's event belongs to: a
// message's receiver, another event's host, the world (last) for none.
func (p *pct) actor(op option) int {
	h := op.choice.Host
	if op.choice.Message {
		h = op.choice.Info.To
	}
	if h < 0 || h >= len(p.prio)-1 {
		return len(p.prio) - 1
	}
	return h
}

// pick returns the event of the actor of highest priority (the earliest
// of its events), and at a change point lowers that actor below all.
func (p *pct) pick(step int, opts []option, events []int) int {
	best := events[0]
	for _, i := range events[1:] {
		if p.prio[p.actor(opts[i])] > p.prio[p.actor(opts[best])] {
			best = i
		}
	}
	if j, ok := p.change[step]; ok {
		p.prio[p.actor(opts[best])] = p.d - j
	}
	return best
}
