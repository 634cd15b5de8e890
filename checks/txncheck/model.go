package txncheck

import "fmt"

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

	G1a        // aborted read: a committed read shows an aborted transaction's write
	G1b        // intermediate read: a read shows a write its transaction later overwrote
	LostUpdate // two committed transactions read the same version of a key and both wrote it

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
	"internal", "garbage-read", "duplicate-elements", "incompatible-order",
	"G1a", "G1b", "lost-update",
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

// A Model is a consistency model: a set of proscribed anomalies.
type Model uint8

// The models, from weakest to strongest: each proscribes every anomaly the
// ones before it proscribe. Every model proscribes internal, garbage-read,
// duplicate-elements and incompatible-order, which break the data model
// every isolation level assumes.
//
// On histories of reads, appends and writes by key (no predicates),
// repeatable read (Adya's PL-2.99: no G1, no G2-item) and serializable
// (PL-3: no G1, no G2) proscribe the same cycles, since every rw edge here
// is an item anti-dependency: they are listed apart because they differ on
// predicates, which these histories do not have.
const (
	// ReadCommitted (Adya's PL-2) proscribes G1a, G1b and G1c, and G0.
	ReadCommitted Model = iota + 1
	// SnapshotIsolation also proscribes G-single and G-nonadjacent (a
	// cycle whose rw edges are all non-adjacent: Cerone and Gotsman) and
	// lost-update; it allows G2-item, write skew.
	SnapshotIsolation
	// RepeatableRead (PL-2.99) also proscribes G2-item.
	RepeatableRead
	// Serializable (PL-3) proscribes every cycle of ww, wr and rw edges.
	Serializable
	// StrongSessionSerializable also proscribes the cycles that need a
	// process's order (each client sees its own earlier transactions): the
	// -process anomalies.
	StrongSessionSerializable
	// StrictSerializable also proscribes the cycles that need real-time
	// order (a transaction sees every transaction that completed before it
	// began): the -realtime anomalies.
	StrictSerializable

	numModels
)

var modelNames = [numModels]string{"none", "read-committed", "snapshot-isolation", "repeatable-read", "serializable", "strong-session-serializable", "strict-serializable"}

// String returns the model's name: "snapshot-isolation".
func (m Model) String() string {
	if m < numModels {
		return modelNames[m]
	}
	return fmt.Sprintf("Model(%d)", int(m))
}

// Models returns every model, from weakest to strongest.
func Models() []Model {
	return []Model{ReadCommitted, SnapshotIsolation, RepeatableRead, Serializable, StrongSessionSerializable, StrictSerializable}
}

// Proscribes reports whether the model forbids anomaly a.
func (m Model) Proscribes(a AnomalyType) bool {
	switch {
	case m < ReadCommitted || m >= numModels || a >= numAnomalyTypes:
		return false
	case a >= G0Realtime:
		return m >= StrictSerializable
	case a >= G0Process:
		return m >= StrongSessionSerializable
	case a == G2Item:
		return m >= RepeatableRead
	case a == LostUpdate, a == GSingle, a == GNonadjacent:
		return m >= SnapshotIsolation
	default:
		return true
	}
}

// weakestViolated returns the weakest model that proscribes one of the
// anomalies, or 0 if none does.
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
