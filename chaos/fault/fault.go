// Package fault is the vocabulary of faults: what a fault is, the log of the
// faults applied to a run, and the intervals of virtual time they span.
//
// It is a leaf package (the standard library only) so that everything that
// reads a fault log — the checks' visualizations, the figures' shading, a
// student's own tests — can import it without the world. Package chaos
// applies faults and writes the log.
package fault

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Kind names what a Fault does.
type Kind int

// The kinds of fault.
const (
	Heal      Kind = iota // bring every link back up
	Partition             // cut every link between different groups
	Isolate               // cut every link to and from one host
	Cut                   // cut the one-way link from Host to To
	Kill                  // kill a host
	Restart               // restart a killed host
	Drift                 // set a host's clock rate
	Bridge                // cut the two groups apart except through one host that hears both
)

var kindNames = [...]string{"heal", "partition", "isolate", "cut", "kill", "restart", "drift", "bridge"}

// String returns the kind's name as the fault log shows it.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// A Fault is one thing done to the system. Hosts are named by their index
// in the list of hosts the faults apply to (a chaos.Monkey's hosts).
type Fault struct {
	Kind   Kind
	Groups [][]int // Partition, Bridge: the sides; a host in no group (nor the bridge) is cut off alone
	Host   int     // Isolate, Cut (the sender), Kill, Restart, Drift; Bridge: the bridge
	To     int     // Cut: the receiver
	Rate   float64 // Drift: the host's new clock rate
}

// String describes the fault as a person says it, hosts being servers
// named by index: "kill server 2", "partition {0 1} | {2}".
func (f Fault) String() string { return f.Format(nil) }

// Format describes the fault as a person says it, naming host i by
// names[i] (by its index where names is too short). A host named by a
// number is a server: alone, it is "server 3"; in a set, "3". Every set is
// written in braces, its hosts in order: "partition {0 1 2} | {3 4}". A
// partition lists every side, each host that its groups leave out being a
// side of its own, when names gives every host.
func (f Fault) Format(names []string) string {
	member := func(h int) string {
		if h >= 0 && h < len(names) {
			return names[h]
		}
		return strconv.Itoa(h)
	}
	one := func(h int) string {
		name := member(h)
		if _, err := strconv.Atoi(name); err == nil {
			return "server " + name
		}
		return name
	}
	switch f.Kind {
	case Heal:
		return "heal"
	case Partition, Bridge:
		sides := f.sides(len(names))
		parts := make([]string, len(sides))
		for i, side := range sides {
			hs := make([]string, len(side))
			for j, h := range side {
				hs[j] = member(h)
			}
			parts[i] = "{" + strings.Join(hs, " ") + "}"
		}
		if f.Kind == Bridge {
			return "partition " + strings.Join(parts, " | ") + ", bridged by " + one(f.Host)
		}
		return "partition " + strings.Join(parts, " | ")
	case Cut:
		return fmt.Sprintf("cut %s → %s", one(f.Host), one(f.To))
	case Drift:
		return fmt.Sprintf("drift %s x%g", one(f.Host), f.Rate)
	default:
		return fmt.Sprintf("%v %s", f.Kind, one(f.Host))
	}
}

// sides returns the groups of a partition or bridge, each sorted, and, of
// n hosts, each that no group holds (nor the bridge) as a side of its own.
func (f Fault) sides(n int) [][]int {
	placed := map[int]bool{}
	if f.Kind == Bridge {
		placed[f.Host] = true
	}
	var sides [][]int
	for _, g := range f.Groups {
		side := slices.Sorted(slices.Values(g))
		for _, h := range side {
			placed[h] = true
		}
		sides = append(sides, side)
	}
	for h := range n {
		if !placed[h] {
			sides = append(sides, []int{h})
		}
	}
	return sides
}
