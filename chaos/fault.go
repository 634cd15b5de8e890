package chaos

import (
	"fmt"
	"strings"

	"github.com/replab/replab/sim"
)

// A Kind names what a Fault does.
type Kind int

// The kinds of fault.
const (
	Heal      Kind = iota // bring every link back up
	Partition             // cut every link between different groups
	Isolate               // cut every link to and from one host
	Cut                   // cut the one-way link from Host to To
	Kill                  // kill a host (through Hooks.Kill)
	Restart               // restart a killed host (through Hooks.Restart)
	Drift                 // set a host's clock rate
)

var kindNames = [...]string{"heal", "partition", "isolate", "cut", "kill", "restart", "drift"}

// String returns the kind's name as the fault log shows it.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// A Fault is one thing the monkey does to the system. Hosts are named by
// their index in the monkey's host list.
type Fault struct {
	Kind   Kind
	Groups [][]int // Partition: the sides; a host in no group is cut off alone
	Host   int     // Isolate, Cut (the sender), Kill, Restart, Drift
	To     int     // Cut: the receiver
	Rate   float64 // Drift: the host's new clock rate
}

// String describes the fault in a few words, as the fault log shows it.
func (f Fault) String() string {
	switch f.Kind {
	case Heal:
		return "heal"
	case Partition:
		parts := make([]string, len(f.Groups))
		for i, g := range f.Groups {
			parts[i] = fmt.Sprint(g)
		}
		return "partition " + strings.Join(parts, " | ")
	case Cut:
		return fmt.Sprintf("cut %d->%d", f.Host, f.To)
	case Drift:
		return fmt.Sprintf("drift %d x%g", f.Host, f.Rate)
	default:
		return fmt.Sprintf("%v %d", f.Kind, f.Host)
	}
}

// validate checks the fault's hosts against a cluster of n hosts.
func (f Fault) validate(n int) error {
	host := func(h int) error {
		if h < 0 || h >= n {
			return fmt.Errorf("chaos: %v: host %d is not in 0..%d", f.Kind, h, n-1)
		}
		return nil
	}
	switch f.Kind {
	case Heal:
		return nil
	case Partition:
		seen := make([]bool, n)
		for _, g := range f.Groups {
			for _, h := range g {
				if err := host(h); err != nil {
					return err
				}
				if seen[h] {
					return fmt.Errorf("chaos: partition: host %d is in more than one group", h)
				}
				seen[h] = true
			}
		}
		return nil
	case Cut:
		if err := host(f.Host); err != nil {
			return err
		}
		return host(f.To)
	case Drift:
		if err := sim.CheckClockRate(f.Rate); err != nil {
			return err
		}
		return host(f.Host)
	case Isolate, Kill, Restart:
		return host(f.Host)
	default:
		return fmt.Errorf("chaos: unknown fault kind %d", int(f.Kind))
	}
}
