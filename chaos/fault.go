package chaos

import (
	"fmt"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim"
)

// validate checks the fault's hosts against a cluster of n hosts.
func validate(f fault.Fault, n int) error {
	host := func(h int) error {
		if h < 0 || h >= n {
			return fmt.Errorf("chaos: %v: host %d is not in 0..%d", f.Kind, h, n-1)
		}
		return nil
	}
	switch f.Kind {
	case fault.Heal:
		return nil
	case fault.Partition, fault.Bridge:
		seen := make([]bool, n)
		if f.Kind == fault.Bridge {
			if len(f.Groups) != 2 {
				return fmt.Errorf("chaos: bridge: want 2 groups, got %d", len(f.Groups))
			}
			if err := host(f.Host); err != nil {
				return err
			}
			seen[f.Host] = true
		}
		for _, g := range f.Groups {
			for _, h := range g {
				if err := host(h); err != nil {
					return err
				}
				if seen[h] {
					return fmt.Errorf("chaos: %v: host %d is in more than one group", f.Kind, h)
				}
				seen[h] = true
			}
		}
		return nil
	case fault.Cut:
		if err := host(f.Host); err != nil {
			return err
		}
		return host(f.To)
	case fault.Drift:
		if err := sim.CheckClockRate(f.Rate); err != nil {
			return err
		}
		return host(f.Host)
	case fault.Isolate, fault.Kill, fault.Restart:
		return host(f.Host)
	default:
		return fmt.Errorf("chaos: unknown fault kind %d", int(f.Kind))
	}
}
