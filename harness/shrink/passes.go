package shrink

import (
	"slices"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
)

// eighths is how finely a pass divides what it shortens: a run's length,
// a fault's duration.
const eighths = 8

// clone returns a deep copy of e, to edit.
func clone(e runfile.Shrunk) runfile.Shrunk {
	e.Clients = slices.Clone(e.Clients)
	if e.Nemesis != nil {
		n := *e.Nemesis
		n.Steps, n.Heals = slices.Clone(n.Steps), slices.Clone(n.Heals)
		e.Nemesis = &n
	}
	return e
}

// shorten looks for the shortest run that still fails, among k eighths
// of its length, k = 1..7, by bisection (three runs, where failing is
// monotone in the length, as it mostly is): the nemesis's steps from the
// new end on dropped, and the heals whose progress would not be seen
// within it.
func (s *shrinker) shorten() {
	full := s.run.Length
	lo, hi := 0, eighths // hi eighths fail (the whole run); lo eighths are not known to
	for hi-lo > 1 && s.runs < s.opts.MaxRuns {
		k := (lo + hi) / 2
		l := (full * time.Duration(k) / eighths).Round(time.Millisecond)
		if l <= 0 || l >= full { // rounded to nothing, or to the run as it is
			lo = k
			continue
		}
		c := clone(s.cur)
		c.Length = int64(l)
		if n := c.Nemesis; n != nil {
			n.Steps = slices.DeleteFunc(n.Steps, func(st runfile.Step) bool { return time.Duration(st.At) >= l })
			n.Heals = slices.DeleteFunc(n.Heals, func(h int64) bool { return time.Duration(h)+s.run.Progress > l })
		}
		if s.try("a shorter run", []runfile.Shrunk{c}) >= 0 {
			hi = k
		} else {
			lo = k
		}
	}
}

// An item is one step of the schedule, with its place in it.
type item struct {
	ord int
	st  runfile.Step
}

// units splits steps into units, each a strike and, if some later step
// heals it specifically, that step; and the frame, the steps that heal
// but belong to no strike (the heals of everything, which frame the
// progress checks).
func units(steps []runfile.Step) (us [][]item, frame []item) {
	claimed := make([]bool, len(steps))
	for i, st := range steps {
		if st.Fault.Heals() {
			continue
		}
		u := []item{{i, st}}
		for j := i + 1; j < len(steps); j++ {
			if !claimed[j] && healsOf(steps[j].Fault, st.Fault) {
				claimed[j] = true
				u = append(u, item{j, steps[j]})
				break
			}
		}
		claimed[i] = true
		us = append(us, u)
	}
	for i, st := range steps {
		if !claimed[i] {
			frame = append(frame, item{i, st})
		}
	}
	return us, frame
}

// healsOf reports whether h heals strike f specifically: a restart of the
// host f killed, the rejoin of the host it isolated, the uncut of the link
// it cut, a clock set back to its true rate, a mode switched back off.
func healsOf(h, f fault.Fault) bool {
	switch f.Kind {
	case fault.Kill:
		return h.Kind == fault.Restart && h.Host == f.Host
	case fault.Isolate:
		return h.Kind == fault.Rejoin && h.Host == f.Host
	case fault.Cut:
		return h.Kind == fault.Uncut && h.Host == f.Host && h.To == f.To
	case fault.Drift:
		return h.Kind == fault.Drift && h.Host == f.Host && h.Rate == 1
	case fault.Unreliable, fault.Reordering, fault.LongDelays, fault.Duplicate, fault.DelayRule:
		return h.Kind == f.Kind && h.Heals()
	}
	return false
}

// compose returns the schedule of the frame and the units, in their
// steps' order: by time, then by place in the schedule they came from.
func compose(frame []item, us [][]item) []runfile.Step {
	all := slices.Clone(frame)
	for _, u := range us {
		all = append(all, u...)
	}
	slices.SortFunc(all, func(a, b item) int {
		if a.st.At != b.st.At {
			return int(a.st.At - b.st.At)
		}
		return a.ord - b.ord
	})
	steps := make([]runfile.Step, len(all))
	for i, it := range all {
		steps[i] = it.st
	}
	return steps
}

// withSteps returns the current edits with the schedule steps.
func (s *shrinker) withSteps(steps []runfile.Step) runfile.Shrunk {
	c := clone(s.cur)
	c.Nemesis.Steps = steps
	return c
}

// fewerFaults runs ddmin over the schedule's units.
func (s *shrinker) fewerFaults() {
	us, frame := units(s.cur.Nemesis.Steps)
	s.ddmin(us, func(kept [][]item) runfile.Shrunk { return s.withSteps(compose(frame, kept)) })
}

// fewerReactiveFaults runs ddmin over the units of the faults a nemesis
// that reacts to the run asked for, skipping (Nemesis.Skip) those of the
// units left out: the run may then go otherwise, and the nemesis ask for
// other faults, but deterministically so.
func (s *shrinker) fewerReactiveFaults() {
	skipped := map[int]bool{}
	for _, k := range s.cur.Skip {
		skipped[k] = true
	}
	steps := make([]runfile.Step, len(s.rec.Attempts))
	for i, st := range s.rec.Attempts {
		steps[i] = runfile.Step{At: int64(st.At), Fault: st.Fault}
	}
	all, _ := units(steps)
	var us [][]item
	for _, u := range all {
		if !skipped[u[0].ord] {
			us = append(us, u)
		}
	}
	s.ddmin(us, func(kept [][]item) runfile.Shrunk {
		keep := map[int]bool{}
		for _, u := range kept {
			for _, it := range u {
				keep[it.ord] = true
			}
		}
		c := clone(s.cur)
		c.Skip = slices.Clone(s.cur.Skip)
		for _, u := range us {
			for _, it := range u {
				if !keep[it.ord] {
					c.Skip = append(c.Skip, it.ord)
				}
			}
		}
		slices.Sort(c.Skip)
		c.Skip = slices.Compact(c.Skip)
		return c
	})
}

// ddmin runs delta debugging over units, cand making the edits that keep
// some of them: first none at all, then halves, quarters..., each subset
// and each complement, keeping the first that fails.
func (s *shrinker) ddmin(us [][]item, cand func(kept [][]item) runfile.Shrunk) {
	if len(us) == 0 {
		return
	}
	if s.try("no faults", []runfile.Shrunk{cand(nil)}) >= 0 {
		return
	}
	n := 2
	for len(us) > 1 && s.runs < s.opts.MaxRuns {
		chunks := split(us, n)
		var cands []runfile.Shrunk
		for _, ch := range chunks {
			cands = append(cands, cand(ch))
		}
		if n > 2 {
			for i := range chunks {
				cands = append(cands, cand(complement(chunks, i)))
			}
		}
		switch k := s.try("fewer faults", cands); {
		case k >= 0 && k < len(chunks):
			us, n = chunks[k], 2
		case k >= 0:
			us, n = complement(chunks, k-len(chunks)), max(n-1, 2)
		case n >= len(us):
			return
		default:
			n = min(2*n, len(us))
		}
	}
}

// split cuts us into n parts of nearly equal length, in order.
func split(us [][]item, n int) [][][]item {
	var out [][][]item
	for i := range n {
		part := us[i*len(us)/n : (i+1)*len(us)/n]
		if len(part) > 0 {
			out = append(out, part)
		}
	}
	return out
}

// complement returns every chunk's units but chunk k's.
func complement(chunks [][][]item, k int) [][]item {
	var out [][]item
	for i, ch := range chunks {
		if i != k {
			out = append(out, ch...)
		}
	}
	return out
}

// shorterFaults tries, for each strike that a later step heals, that step
// moved earlier, to k eighths of the time between them, k = 0..7, and
// keeps the shortest that fails.
func (s *shrinker) shorterFaults() {
	for u := 0; s.runs < s.opts.MaxRuns; u++ {
		us, frame := units(s.cur.Nemesis.Steps)
		if u >= len(us) {
			return
		}
		if len(us[u]) < 2 {
			continue
		}
		strike, healer := us[u][0].st.At, us[u][1].st.At
		var cands []runfile.Shrunk
		for k := range int64(eighths) {
			at := strike + (healer-strike)*k/eighths
			if at >= healer || len(cands) > 0 && at == strike {
				continue
			}
			moved := slices.Clone(us)
			moved[u] = []item{us[u][0], {us[u][1].ord, runfile.Step{At: at, Fault: us[u][1].st.Fault}}}
			cands = append(cands, s.withSteps(compose(frame, moved)))
		}
		s.try("shorter faults", cands)
	}
}

// fewerClients tries, for each kind of client the workload has, fewer of
// them (none, one, a quarter, a half, one fewer), and keeps the fewest
// that fail; the faults that name a client host no longer there go.
func (s *shrinker) fewerClients() {
	rz, ok := s.run.Workload.(testbed.Resizer)
	if !ok {
		return
	}
	for kind := range rz.Counts() {
		counts := s.run.Workload.(testbed.Resizer).Counts()
		have := counts[kind]
		var cands []runfile.Shrunk
		fewer := []int{0, 1, have / 4, have / 2, have - 1}
		slices.Sort(fewer)
		for _, n := range fewer {
			if n < 0 || n >= have || len(cands) > 0 && cands[len(cands)-1].Clients[kind] == n {
				continue
			}
			c := clone(s.cur)
			c.Clients = slices.Clone(counts)
			c.Clients[kind] = n
			if c.Nemesis != nil {
				total := 0
				for _, k := range c.Clients {
					total += k
				}
				servers := len(testbed.ServerHosts(s.run.Deploy))
				c.Nemesis.Steps = remap(c.Nemesis.Steps, func(h int) (int, bool) { return h, h < servers+total })
			}
			cands = append(cands, c)
		}
		s.try("fewer clients", cands)
	}
}

// fewerServers tries, for a run of one group on hosts of its own, fewer
// servers (one, two, ..., one fewer), and keeps the fewest that fail: the
// faults that name a server no longer there go, and the clients' hosts,
// after the servers', are renumbered.
func (s *shrinker) fewerServers() {
	d := s.run.Deploy
	if len(d.Groups) != 1 || d.Hosts != 0 || d.Groups[0].Hosts != nil {
		return
	}
	have := d.Groups[0].Replicas
	var cands []runfile.Shrunk
	for n := 1; n < have; n++ {
		c := clone(s.cur)
		c.Servers = n
		c.Nemesis.Steps = remap(c.Nemesis.Steps, func(h int) (int, bool) {
			switch {
			case h < n:
				return h, true
			case h < have:
				return 0, false
			}
			return h - (have - n), true
		})
		cands = append(cands, c)
	}
	s.try("fewer servers", cands)
}

// remap renames the hosts the steps name by to, which reports false for a
// host no longer there: a step naming such a host goes (a partition's or
// bridge's side just loses it; a partition left with no side goes).
func remap(steps []runfile.Step, to func(h int) (int, bool)) []runfile.Step {
	var out []runfile.Step
	for _, st := range steps {
		f, ok := st.Fault, true
		switch f.Kind {
		case fault.Cut, fault.Uncut:
			var ok2 bool
			f.Host, ok = to(f.Host)
			f.To, ok2 = to(f.To)
			ok = ok && ok2
		case fault.Isolate, fault.Rejoin, fault.Kill, fault.Restart, fault.Drift, fault.Bridge:
			f.Host, ok = to(f.Host)
		}
		if f.Kind == fault.Partition || f.Kind == fault.Bridge {
			var groups [][]int
			for _, g := range f.Groups {
				var side []int
				for _, h := range g {
					if h2, in := to(h); in {
						side = append(side, h2)
					}
				}
				if len(side) > 0 {
					groups = append(groups, side)
				}
			}
			f.Groups = groups
			ok = ok && len(groups) > 0
		}
		if ok {
			out = append(out, runfile.Step{At: st.At, Fault: f})
		}
	}
	return out
}
