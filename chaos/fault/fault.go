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

// String describes the fault in a few words, naming hosts by index.
func (f Fault) String() string { return f.Format(nil) }

// Format describes the fault in a few words, naming host i by names[i]
// (by its index where names is too short).
func (f Fault) Format(names []string) string {
	name := func(h int) string {
		if h >= 0 && h < len(names) {
			return names[h]
		}
		return fmt.Sprint(h)
	}
	switch f.Kind {
	case Heal:
		return "heal"
	case Partition, Bridge:
		parts := make([]string, len(f.Groups))
		for i, g := range f.Groups {
			hs := make([]string, len(g))
			for j, h := range g {
				hs[j] = name(h)
			}
			parts[i] = "[" + strings.Join(hs, " ") + "]"
		}
		if f.Kind == Bridge {
			return "bridge " + strings.Join(parts, " <"+name(f.Host)+"> ")
		}
		return "partition " + strings.Join(parts, " | ")
	case Cut:
		return fmt.Sprintf("cut %s->%s", name(f.Host), name(f.To))
	case Drift:
		return fmt.Sprintf("drift %s x%g", name(f.Host), f.Rate)
	default:
		return fmt.Sprintf("%v %s", f.Kind, name(f.Host))
	}
}
