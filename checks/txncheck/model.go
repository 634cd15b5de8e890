package txncheck

import (
	"fmt"
	"strings"
)

// An AnomalyType names an anomaly as Adya and Elle name it.
type AnomalyType uint8

// The anomalies, in order of severity within each group. The cycle
// anomalies are named by their most specific class: a G-single cycle is
// also, in Adya's terms, a G2-item cycle, but is reported as G-single.
const (
	// Anomalies that break the data model itself.
	Internal          AnomalyType = iota // a read disagrees with the transaction's own earlier ops on the key
	GarbageRead                          // a read shows a value no transaction appended or wrote
	DuplicateElements                    // a list read shows a value twice
	IncompatibleOrder                    // two reads of a list disagree on a common prefix
	FutureRead                           // a read shows its own transaction's later append or write
	CyclicVersions                       // a register's version-order sources contradict each other

	G1a         // aborted read: a committed read shows an aborted transaction's write
	G1b         // intermediate read: a read shows a write its transaction later overwrote
	DirtyUpdate // a committed write installed directly on an aborted transaction's version
	LostUpdate  // two committed transactions read the same version of a key and both wrote it

	G0           // a cycle of write-write (ww) dependencies
	G1c          // a cycle of ww and write-read (wr) dependencies, at least one wr
	GSingle      // a cycle with exactly one read-write (rw) anti-dependency: read skew
	GNonadjacent // a cycle with several rw edges, no two adjacent
	G2Item       // a cycle with two adjacent rw edges: write skew

	G0Process // the same cycles, shown only with process (session) order
	G1cProcess
	GSingleProcess
	GNonadjacentProcess
	G2ItemProcess

	G0Realtime // the same cycles, shown only with real-time order
	G1cRealtime
	GSingleRealtime
	GNonadjacentRealtime
	G2ItemRealtime

	numAnomalyTypes
)

var anomalyNames = [numAnomalyTypes]string{
	"internal", "garbage-read", "duplicate-elements", "incompatible-order", "future-read", "cyclic-versions",
	"G1a", "G1b", "dirty-update", "lost-update",
	"G0", "G1c", "G-single", "G-nonadjacent", "G2-item",
	"G0-process", "G1c-process", "G-single-process", "G-nonadjacent-process", "G2-item-process",
	"G0-realtime", "G1c-realtime", "G-single-realtime", "G-nonadjacent-realtime", "G2-item-realtime",
}

// String returns the anomaly's name: "G1a", "G-single-realtime", "lost-update".
func (a AnomalyType) String() string {
	if a < numAnomalyTypes {
		return anomalyNames[a]
	}
	return fmt.Sprintf("AnomalyType(%d)", int(a))
}

// IsCycle reports whether the anomaly is a cycle of dependencies.
func (a AnomalyType) IsCycle() bool { return a >= G0 && a < numAnomalyTypes }

// cycleBase returns G0 … G2Item for a cycle anomaly and its -process and
// -realtime variants.
func (a AnomalyType) cycleBase() AnomalyType { return G0 + (a-G0)%5 }

// An anomalySet is a set of anomaly types, a bit each.
type anomalySet uint32

// setOf returns the set of the given anomalies.
func setOf(as ...AnomalyType) anomalySet {
	var s anomalySet
	for _, a := range as {
		s |= 1 << a
	}
	return s
}

// has reports whether a is in the set (never, for a not an anomaly type:
// no set holds bits past numAnomalyTypes, and a shift past 31 gives 0).
func (s anomalySet) has(a AnomalyType) bool { return s&(1<<a) != 0 }

// implies lists, for each anomaly, those it is a special case of, as
// Elle's anomaly graph has them (restricted to the anomalies found here):
// a history that shows the first shows the others too. A G0 cycle is a
// G1c cycle without wr edges; a future read is a one-transaction G1c; an
// incompatible order and a dirty update are dirty reads (G1a); a lost
// update is a G2-item; each cycle is its -process variant (which may use
// process order but need not), and each -process cycle its -realtime
// variant (a process runs one transaction at a time, so its order is
// real-time order); G-single is a special G-nonadjacent.
var implies = map[AnomalyType][]AnomalyType{
	G0:                  {G1c, G0Process},
	G0Process:           {G1cProcess, G0Realtime},
	G0Realtime:          {G1cRealtime},
	G1c:                 {G1cProcess},
	G1cProcess:          {G1cRealtime},
	GSingle:             {GNonadjacent, GSingleProcess},
	GSingleProcess:      {GNonadjacentProcess, GSingleRealtime},
	GSingleRealtime:     {GNonadjacentRealtime},
	GNonadjacent:        {GNonadjacentProcess},
	GNonadjacentProcess: {GNonadjacentRealtime},
	G2Item:              {G2ItemProcess},
	G2ItemProcess:       {G2ItemRealtime},
	IncompatibleOrder:   {G1a},
	FutureRead:          {G1c},
	DirtyUpdate:         {G1a},
	LostUpdate:          {G2Item},
}

// implying returns s with every anomaly that implies one in s, directly or
// not: checking for an anomaly means checking for its special cases too.
func implying(s anomalySet) anomalySet {
	for changed := true; changed; {
		changed = false
		for a, bs := range implies {
			for _, b := range bs {
				if s.has(b) && !s.has(a) {
					s |= 1 << a
					changed = true
				}
			}
		}
	}
	return s
}

// A Model is a consistency model: a set of proscribed anomalies.
type Model uint8

// The models, in an order from weakest to strongest in which each model
// comes after every model it implies (models are a lattice, not a chain:
// serializable and strong session snapshot isolation each allow something
// the other forbids). Each proscribes the anomalies Elle's consistency-
// model graph gives it (Elle's direct proscriptions, those of the models
// it implies, and every anomaly that implies one of them), restricted to
// the anomalies found here, plus garbage-read, which every model
// proscribes: a value nobody wrote breaks the data model itself.
//
// One deliberate difference from Elle: repeatable read (Adya's PL-2.99)
// proscribes G-single and G-nonadjacent, as well as G2-item. In Adya's
// terms every cycle with an item anti-dependency is G2-item; Elle names
// the cycles with one rw edge G-single and (as its own notes say) so lets
// them through a repeatable-read check. On histories of reads, appends and
// writes by key (no predicates), repeatable read and serializable differ
// only in that serializable also proscribes internal (Elle's choice:
// Adya's levels say nothing of a transaction's reads of its own writes).
const (
	// ReadUncommitted (Adya's PL-1) proscribes G0 (dirty write),
	// duplicate-elements and cyclic-versions: the version order is total.
	ReadUncommitted Model = iota + 1
	// ReadCommitted (PL-2) also proscribes G1a, G1b and G1c, and the
	// anomalies that imply them: incompatible-order, dirty-update and
	// future-read.
	ReadCommitted
	// SnapshotIsolation also proscribes internal, lost-update, G-single and
	// G-nonadjacent (a cycle whose rw edges are all non-adjacent: Cerone
	// and Gotsman); it allows G2-item, write skew.
	SnapshotIsolation
	// RepeatableRead (PL-2.99) is read committed with lost-update,
	// G-single, G-nonadjacent and G2-item proscribed: no cycle with an rw
	// edge.
	RepeatableRead
	// Serializable (PL-3) proscribes every cycle of ww, wr and rw edges,
	// and all that snapshot isolation does.
	Serializable
	// StrongSessionSnapshotIsolation is snapshot isolation in which each
	// process sees its own earlier transactions: it also proscribes the
	// -process variants of the cycles snapshot isolation proscribes (G0,
	// G1c, G-single, G-nonadjacent).
	StrongSessionSnapshotIsolation
	// StrongSnapshotIsolation is snapshot isolation in which a transaction
	// sees every transaction that completed before it began: it also
	// proscribes the -realtime variants of G0, G1c, G-single and
	// G-nonadjacent (and their -process variants).
	StrongSnapshotIsolation
	// StrongSessionSerializable is serializable and strong session
	// snapshot isolation, with G2-item-process too: every -process cycle.
	StrongSessionSerializable
	// StrictSerializable proscribes every anomaly here, the cycles that
	// need real-time order (-realtime) included.
	StrictSerializable

	numModels
)

var modelNames = [numModels]string{"none", "read-uncommitted", "read-committed", "snapshot-isolation",
	"repeatable-read", "serializable", "strong-session-snapshot-isolation", "strong-snapshot-isolation",
	"strong-session-serializable", "strict-serializable"}

// String returns the model's name: "snapshot-isolation".
func (m Model) String() string {
	if m < numModels {
		return modelNames[m]
	}
	return fmt.Sprintf("Model(%d)", int(m))
}

// Models returns every model, from weakest to strongest (each after every
// model it implies).
func Models() []Model {
	return []Model{ReadUncommitted, ReadCommitted, SnapshotIsolation, RepeatableRead, Serializable,
		StrongSessionSnapshotIsolation, StrongSnapshotIsolation, StrongSessionSerializable, StrictSerializable}
}

// proscribed holds each model's anomalies, closed under implying.
var proscribed = func() [numModels]anomalySet {
	var s [numModels]anomalySet
	s[ReadUncommitted] = setOf(G0, DuplicateElements, CyclicVersions, GarbageRead)
	s[ReadCommitted] = s[ReadUncommitted] | setOf(G1a, G1b, G1c)
	s[SnapshotIsolation] = s[ReadCommitted] | setOf(Internal, LostUpdate, GNonadjacent)
	s[RepeatableRead] = s[ReadCommitted] | setOf(LostUpdate, GNonadjacent, G2Item)
	s[Serializable] = s[SnapshotIsolation] | s[RepeatableRead]
	s[StrongSessionSnapshotIsolation] = s[SnapshotIsolation] | setOf(G1cProcess, GNonadjacentProcess)
	s[StrongSnapshotIsolation] = s[StrongSessionSnapshotIsolation] | setOf(G1cRealtime, GNonadjacentRealtime)
	s[StrongSessionSerializable] = s[Serializable] | s[StrongSessionSnapshotIsolation] | setOf(G2ItemProcess)
	s[StrictSerializable] = 1<<numAnomalyTypes - 1
	for m := range s {
		s[m] = implying(s[m])
	}
	return s
}()

// Proscribes reports whether the model forbids anomaly a.
func (m Model) Proscribes(a AnomalyType) bool { return m < numModels && proscribed[m].has(a) }

// Implies reports whether every history valid under m is valid under
// weaker: whether m proscribes every anomaly weaker does.
func (m Model) Implies(weaker Model) bool {
	return m < numModels && weaker < numModels && proscribed[weaker]&^proscribed[m] == 0
}

// weakestViolated returns the first model, weakest first, that proscribes
// one of the anomalies, or 0 if none does.
func weakestViolated(found []Anomaly) Model {
	for _, m := range Models() {
		for _, a := range found {
			if m.Proscribes(a.Type) {
				return m
			}
		}
	}
	return 0
}

// describeSet names a set of anomalies: "anomalies G0, G1c".
func describeSet(s anomalySet) string {
	var names []string
	for a := range numAnomalyTypes {
		if s.has(a) {
			names = append(names, a.String())
		}
	}
	return "anomalies " + strings.Join(names, ", ")
}
