package txncheck

import (
	"fmt"
	"slices"
	"strings"
)

// A Verdict is the outcome of a check.
type Verdict uint8

// The verdicts.
const (
	// Valid: no anomaly the model proscribes.
	Valid Verdict = iota
	// Invalid: at least one anomaly the model proscribes, for certain.
	Invalid
	// Inconclusive: none found, but a cycle search ran out of budget
	// before it could rule one out. Not a pass.
	Inconclusive
)

// String returns "valid", "invalid" or "inconclusive".
func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "inconclusive"
}

// An Anomaly is one anomaly found, with the transactions that show it.
type Anomaly struct {
	Type AnomalyType
	Txns []int // the transactions involved, by id; for a cycle, in its order
	Key  int   // the key, for anomalies of one key (not cycles)
	Text string
	// Steps explains a cycle, one step per edge: T[i] < T[i+1] because…,
	// the last step back to the first transaction.
	Steps []Step
}

// A Step is one edge of a cycle: From precedes To, for the reason Dep.
type Step struct {
	From, To int
	Dep      Dep
	Text     string // "T12 < T40: T40 read T12's append of 7 to key 3"
}

// String explains the anomaly: its type and text, and a cycle's steps, a
// line each.
func (a Anomaly) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %s", a.Type, a.Text)
	for _, s := range a.Steps {
		fmt.Fprintf(&b, "\n  %s", s.Text)
	}
	return b.String()
}

// A Result is the outcome of Check.
type Result struct {
	Model     Model   // the model checked
	Verdict   Verdict //
	Anomalies []Anomaly
	// Weakest is the weakest model the anomalies violate (0 if none): the
	// history is invalid under it and every stronger model.
	Weakest Model
	Note    string // why the verdict is Inconclusive
	txns    []Txn
}

// OK reports whether the history is valid under the model. Inconclusive
// is not OK.
func (r *Result) OK() bool { return r.Verdict == Valid }

// Count returns how many anomalies of type t were found.
func (r *Result) Count(t AnomalyType) int {
	n := 0
	for _, a := range r.Anomalies {
		if a.Type == t {
			n++
		}
	}
	return n
}

// First returns the first anomaly of type t found, and whether there is one.
func (r *Result) First(t AnomalyType) (Anomaly, bool) {
	for _, a := range r.Anomalies {
		if a.Type == t {
			return a, true
		}
	}
	return Anomaly{}, false
}

// String explains the result: the verdict, then each anomaly.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v under %v: %d transactions", r.Verdict, r.Model, len(r.txns))
	if r.Weakest != 0 {
		fmt.Fprintf(&b, "; weakest model violated: %v", r.Weakest)
	}
	if r.Note != "" {
		fmt.Fprintf(&b, "; %s", r.Note)
	}
	switch len(r.Anomalies) {
	case 0:
	case 1:
		b.WriteString("; 1 anomaly")
	default:
		fmt.Fprintf(&b, "; %d anomalies", len(r.Anomalies))
	}
	b.WriteByte('\n')
	for _, a := range r.Anomalies {
		b.WriteString(a.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// checker holds one check's indexes.
type checker struct {
	txns      []Txn
	installed map[int][]int
	model     Model

	keyIdx  map[int]int32
	keys    []keyInfo
	opKeys  []int32 // the key index of every op, transaction after transaction
	opStart []int32 // where each transaction's ops begin in opKeys
	vers    []version
	byValue []valueRef // the versions by key, then value
	reads   []readRec  // external reads of committed transactions, in transaction order
	rmw     []readRec  // those followed by a write of the key
	succ    [][]int32  // registers: the versions known to follow each directly

	byProcess                 []int32 // transactions sorted by process, then invocation
	rtStart, rtCount, rtPreds []int32 // real-time frontier each transaction saw

	garbageSeen      map[kv]bool
	incompatibleSeen map[int]bool
	anomalies        []Anomaly
	note             string
}

// Check checks the history against model and returns the verdict, the
// anomalies the model proscribes that the history shows, and the weakest
// model they violate. An error means the history is malformed: a value
// written twice to a key, a key both appended to and written, a process
// running two transactions at once, a completion before its invocation.
func Check(h *History, model Model) (*Result, error) {
	if model < ReadCommitted || model >= numModels {
		return nil, fmt.Errorf("txncheck: unknown model %v", model)
	}
	c := &checker{
		txns: h.txns, installed: h.installed, model: model,
		keyIdx:      make(map[int]int32),
		garbageSeen: make(map[kv]bool), incompatibleSeen: make(map[int]bool),
	}
	if err := c.indexWrites(); err != nil {
		return nil, err
	}
	if err := c.orderProcesses(); err != nil {
		return nil, err
	}
	c.orderLists()
	if err := c.checkReads(); err != nil {
		return nil, err
	}
	c.orderRegisters()
	c.lostUpdates()
	c.cycles()

	r := &Result{Model: model, Anomalies: c.anomalies, Note: c.note, txns: h.txns}
	slices.SortStableFunc(r.Anomalies, func(a, b Anomaly) int { return int(a.Type) - int(b.Type) })
	r.Weakest = weakestViolated(r.Anomalies)
	switch {
	case len(r.Anomalies) > 0:
		r.Verdict = Invalid
	case c.note != "":
		r.Verdict = Inconclusive
	}
	return r, nil
}

// add records an anomaly the model proscribes.
func (c *checker) add(a Anomaly) {
	if c.model.Proscribes(a.Type) {
		c.anomalies = append(c.anomalies, a)
	}
}

// deps returns the kinds of edge the model's graph needs.
func (m Model) deps() Dep {
	switch {
	case m >= StrictSerializable:
		return WW | WR | RW | Proc | RT
	case m >= StrongSessionSerializable:
		return WW | WR | RW | Proc
	case m >= SnapshotIsolation:
		return WW | WR | RW
	}
	return WW | WR
}

// cycles builds the dependency graph, finds its strongly connected
// components, and in each searches for the shortest cycle of every shape
// the model proscribes.
func (c *checker) cycles() {
	kinds := c.model.deps()
	sources := []emitter{c.depEdges}
	if kinds&Proc != 0 {
		sources = append(sources, c.procEdges)
	}
	if kinds&RT != 0 {
		c.orderRealtime()
		sources = append(sources, c.rtEdges)
	}
	g := buildGraph(len(c.txns), func(emit func(from, to int32, d Dep)) {
		for _, src := range sources {
			src(func(from, to int32, d Dep) {
				if d&kinds != 0 {
					emit(from, to, d)
				}
			})
		}
	})
	comp, comps := g.sccs()
	if len(comps) == 0 {
		return
	}
	s := newSearcher(g, comp, comps)
	specs := cycleSpecs(c.model)
	for ci, members := range comps {
		s.enter(int32(ci), members)
		found := make(map[AnomalyType]bool) // by cycle base
		complete := true
		for _, sp := range specs {
			if found[sp.anomaly.cycleBase()] {
				continue // a -process or -realtime variant adds nothing here
			}
			cycle, exact := s.shortest(sp)
			complete = complete && exact
			if cycle != nil {
				a := c.cycleAnomaly(collapse(cycle))
				found[a.Type.cycleBase()] = true
				c.add(a)
			}
		}
		if len(found) > 0 {
			continue
		}
		a := c.cycleAnomaly(collapse(s.anyCycle(kinds)))
		switch {
		case c.model.Proscribes(a.Type):
			c.add(a)
		case !complete:
			c.note = fmt.Sprintf("the search for the cycles %v proscribes in a component of %d transactions was not exhaustive (it ran out of budget, or found only walks that revisit a transaction)", c.model, len(members))
		}
	}
}
