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
	checked string // without a model: the anomalies checked for
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

// under names what was checked: the model, or the anomalies.
func (r *Result) under() string {
	if r.Model == 0 {
		return r.checked
	}
	return r.Model.String()
}

// String explains the result: the verdict, then each anomaly.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v under %s: %d transactions", r.Verdict, r.under(), len(r.txns))
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
	txns       []Txn
	installed  map[int][]int
	opts       Options
	proscribed anomalySet // what the check reports

	keyIdx  map[int]int32
	keys    []keyInfo
	opKeys  []int32 // the key index of every op, transaction after transaction
	opStart []int32 // where each transaction's ops begin in opKeys
	vers    []version
	byValue []valueRef // the versions by key, then value
	reads   []readRec  // external reads of committed transactions, in transaction order
	rmw     []readRec  // those followed by a write of the key
	succ    [][]int32  // registers: the versions known to follow each directly
	// shown marks the transactions of unknown outcome that committed: a
	// read or the installed order shows one of their writes.
	shown []bool

	byProcess []int32  // transactions sorted by process, then invocation
	rt        frontier // real-time order, reduced

	garbageSeen      map[kv]bool
	incompatibleSeen map[int]bool
	anomalies        []Anomaly
	note             string
}

// Options say what CheckWith checks, and what it may assume of the
// system's registers.
type Options struct {
	// Model is the consistency model to check, or 0 for none.
	Model Model
	// Anomalies names anomalies to check for, beside (or, with no Model,
	// instead of) those the model proscribes; each brings the anomalies
	// that imply it (its special cases: G1c brings G0 and future-read).
	Anomalies []AnomalyType

	// The register version-order options, as Elle has them. Each says
	// something of the system under test that no consistency model says
	// on its own, so only write-follows-read, which every system whose
	// version order is the order it installs versions in satisfies, is on
	// by default.
	//
	// NoWriteFollowsRead turns write-follows-read off: a committed
	// transaction that read version x of a register and then wrote y
	// installed y after x.
	NoWriteFollowsRead bool
	// SequentialKeys assumes each key is sequentially consistent: each
	// process sees a key's versions in order, so that the version a
	// process's transaction last saw or wrote of a key precedes the one
	// its next transaction on the key first sees or writes.
	SequentialKeys bool
	// LinearizableKeys assumes each key is linearizable: the real-time
	// order of transactions on a key orders its versions, so that the
	// version a transaction last saw or wrote of a key precedes the one a
	// transaction begun after it completed first sees or writes.
	LinearizableKeys bool
}

// Check checks the history against model and returns the verdict, the
// anomalies the model proscribes that the history shows, and the weakest
// model they violate. It is CheckWith with the default register options.
func Check(h *History, model Model) (*Result, error) {
	return CheckWith(h, Options{Model: model})
}

// CheckWith checks the history as opts say. An error means the history (or
// opts) is malformed: a value written twice to a key, a key both appended
// to and written, a process running two transactions at once, a
// completion before its invocation, an unknown model or anomaly.
func CheckWith(h *History, opts Options) (*Result, error) {
	if opts.Model >= numModels || opts.Model == 0 && len(opts.Anomalies) == 0 {
		return nil, fmt.Errorf("txncheck: unknown model %v", opts.Model)
	}
	set := proscribed[opts.Model]
	for _, a := range opts.Anomalies {
		if a >= numAnomalyTypes {
			return nil, fmt.Errorf("txncheck: unknown anomaly %v", a)
		}
		set |= setOf(a)
	}
	c := &checker{
		txns: h.txns, installed: h.installed, opts: opts, proscribed: implying(set),
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
	c.markShown()
	c.placeUnread()
	c.lostUpdates()
	c.cycles()

	r := &Result{Model: opts.Model, Anomalies: c.anomalies, Note: c.note, txns: h.txns}
	if opts.Model == 0 {
		r.checked = describeSet(c.proscribed)
	}
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

// add records an anomaly the check looks for.
func (c *checker) add(a Anomaly) {
	if c.proscribed.has(a.Type) {
		c.anomalies = append(c.anomalies, a)
	}
}

// span returns the anomalies from first to last, inclusive.
func span(first, last AnomalyType) anomalySet { return 1<<(last+1) - 1<<first }

// The cycles that need rw edges, process order and real-time order.
var (
	rwCycles   = span(GSingle, G2Item) | span(GSingleProcess, G2ItemProcess) | span(GSingleRealtime, G2ItemRealtime)
	procCycles = span(G0Process, G2ItemRealtime) // a -realtime cycle may use process edges too
	rtCycles   = span(G0Realtime, G2ItemRealtime)
)

// deps returns the kinds of edge the graph needs to show the cycles in s.
func (s anomalySet) deps() Dep {
	d := WW | WR
	if s&rwCycles != 0 {
		d |= RW
	}
	if s&procCycles != 0 {
		d |= Proc
	}
	if s&rtCycles != 0 {
		d |= RT
	}
	return d
}

// cycles builds the dependency graph, finds its strongly connected
// components, and in each searches for the shortest cycle of every shape
// the model proscribes.
func (c *checker) cycles() {
	kinds := c.proscribed.deps()
	sources := []emitter{c.depEdges}
	if kinds&Proc != 0 {
		sources = append(sources, c.procEdges)
	}
	if kinds&RT != 0 {
		c.orderRealtime()
		sources = append(sources, c.emitRealtime)
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
	specs := cycleSpecs(c.proscribed)
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
		case c.proscribed.has(a.Type):
			c.add(a)
		case !complete:
			c.note = fmt.Sprintf("the search for the cycles checked for in a component of %d transactions was not exhaustive (it ran out of budget, or found only walks that revisit a transaction)", len(members))
		}
	}
}
