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
	Heal       Kind = iota // bring every link back up
	Partition              // cut every link between different groups
	Isolate                // cut every link to and from one host
	Cut                    // cut the one-way link from Host to To
	Kill                   // kill a host
	Restart                // restart a killed host
	Drift                  // set a host's clock rate
	Bridge                 // cut the two groups apart except through one host that hears both
	Rejoin                 // lift the isolation of one host, leaving other link faults in force
	Uncut                  // lift the cut of the one-way link from Host to To
	Unreliable             // switch loss and short delays of messages on or off (labrpc's Reliable)
	Reordering             // switch long reordering of replies on or off (labrpc's LongReordering)
	LongDelays             // switch long waits for calls that get no reply on or off (labrpc's LongDelays)
	Duplicate              // deliver requests twice with probability Rate (0: never)
	DelayRule              // put the delay rule called Name in force ("": none)
	Note                   // not a fault: a line a test writes into its fault log, in Event.Text
)

var kindNames = [...]string{"heal", "partition", "isolate", "cut", "kill", "restart", "drift", "bridge",
	"rejoin", "uncut", "unreliable", "reordering", "long delays", "duplicate", "delay rule", "note"}

// String returns the kind's name as the fault log shows it.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// A Fault is one thing done to the system. Hosts are named by their index
// in the list of hosts the faults apply to (a chaos.Monkey's hosts).
//
// The link faults (Partition, Bridge, Isolate, Cut) add up: a link is down
// while any of them in force cuts it. Heal lifts them all; Rejoin lifts one
// isolation and Uncut one cut, and leave the rest in force. A Partition or
// Bridge replaces every link fault before it. The network's modes
// (Unreliable, Reordering, LongDelays, Duplicate, DelayRule) stay as set
// until a fault of the same kind sets them again; Heal leaves them alone.
type Fault struct {
	Kind   Kind
	Groups [][]int // Partition, Bridge: the sides; a host in no group (nor the bridge) is cut off alone
	Host   int     // Isolate, Rejoin, Cut and Uncut (the sender), Kill, Restart, Drift; Bridge: the bridge
	To     int     // Cut, Uncut: the receiver
	Rate   float64 // Drift: the host's new clock rate; Duplicate: the probability a request is delivered twice
	On     bool    // Unreliable, Reordering, LongDelays: switch the mode on (true) or off
	Name   string  // DelayRule: the rule's name, as given to chaos.Monkey.DefineDelayRule ("": no rule)
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
	case Heal, Note:
		return f.Kind.String()
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
	case Cut, Uncut:
		return fmt.Sprintf("%v %s → %s", f.Kind, one(f.Host), one(f.To))
	case Drift:
		return fmt.Sprintf("drift %s x%g", one(f.Host), f.Rate)
	case Unreliable, Reordering, LongDelays:
		if f.On {
			return f.Kind.String() + " on"
		}
		return f.Kind.String() + " off"
	case Duplicate:
		if f.Rate == 0 {
			return "duplication off"
		}
		return "duplicate " + strconv.FormatFloat(f.Rate*100, 'g', 3, 64) + "% of requests"
	case DelayRule:
		if f.Name == "" {
			return "delay rule off"
		}
		return "delay rule: " + f.Name
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

// Heals reports whether the fault ends faults rather than striking: a
// heal, a rejoin, an uncut, a restart, a clock set back to its true rate,
// and a network mode switched off.
func (f Fault) Heals() bool {
	switch f.Kind {
	case Heal, Rejoin, Uncut, Restart:
		return true
	case Drift:
		return f.Rate == 1
	case Unreliable, Reordering, LongDelays:
		return !f.On
	case Duplicate:
		return f.Rate == 0
	case DelayRule:
		return f.Name == ""
	}
	return false
}

// Struck returns the hosts the fault names, in order: a partition's or
// bridge's servers (of the first servers hosts), the host of an isolation,
// kill, restart or drift (and rejoin), a cut's two ends; none for a heal
// or a network mode, which strike the network as a whole.
func (f Fault) Struck(servers int) []int {
	switch f.Kind {
	case Partition, Bridge:
		var hs []int
		for _, side := range f.sides(servers) {
			hs = append(hs, side...)
		}
		if f.Kind == Bridge {
			hs = append(hs, f.Host)
		}
		slices.Sort(hs)
		return hs
	case Cut, Uncut:
		return []int{f.Host, f.To}
	case Isolate, Rejoin, Kill, Restart, Drift:
		return []int{f.Host}
	}
	return nil
}
