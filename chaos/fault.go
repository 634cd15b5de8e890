package chaos

import (
	"errors"
	"fmt"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim"
)

// validate checks a fault against the monkey's hosts and delay rules.
func (m *Monkey) validate(f fault.Fault) error {
	n := m.servers
	anyHost := func(h int) error {
		if h < 0 || h >= len(m.hosts) {
			return fmt.Errorf("chaos: %v: host %d is not in 0..%d", f.Kind, h, len(m.hosts)-1)
		}
		return nil
	}
	host := func(h int) error { // a server
		if h >= n && h < len(m.hosts) {
			return fmt.Errorf("chaos: %v: host %d is client %s: only servers (0..%d) are partitioned, killed and restarted", f.Kind, h, m.names[h], n-1)
		}
		if h < 0 || h >= n {
			return fmt.Errorf("chaos: %v: host %d is not in 0..%d", f.Kind, h, n-1)
		}
		return nil
	}
	switch f.Kind {
	case fault.Heal, fault.Unreliable, fault.Reordering, fault.LongDelays:
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
	case fault.Cut, fault.Uncut:
		if err := anyHost(f.Host); err != nil {
			return err
		}
		if err := anyHost(f.To); err != nil {
			return err
		}
		if f.Host == f.To {
			return fmt.Errorf("chaos: %v: host %d → host %d is no link: a host always reaches itself", f.Kind, f.Host, f.To)
		}
		return nil
	case fault.Drift:
		if err := sim.CheckClockRate(f.Rate); err != nil {
			return err
		}
		return anyHost(f.Host)
	case fault.Isolate, fault.Rejoin:
		return anyHost(f.Host)
	case fault.Kill, fault.Restart:
		return host(f.Host)
	case fault.Duplicate:
		if !(f.Rate >= 0 && f.Rate <= 1) {
			return fmt.Errorf("chaos: duplicate: probability %v is not in [0,1]", f.Rate)
		}
		return nil
	case fault.DelayRule:
		if f.Name != "" && m.rules[f.Name] == nil {
			return fmt.Errorf("chaos: delay rule: no rule is named %q (Monkey.DefineDelayRule names one)", f.Name)
		}
		return nil
	case fault.Note:
		return errors.New("chaos: a note is not a fault to apply: a test writes it into its own log, beside the monkey's")
	default:
		return fmt.Errorf("chaos: unknown fault kind %d", int(f.Kind))
	}
}
