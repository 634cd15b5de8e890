package chaos

import (
	"fmt"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
)

// DefineDelayRule names a delay rule (see labrpc.DelayRule) so that a
// fault can put it in force: fault.Fault{Kind: fault.DelayRule, Name:
// name}, applied now or in a script, and logged as "delay rule: name". A
// name is defined once, so a log names one rule by it.
func (m *Monkey) DefineDelayRule(name string, rule labrpc.DelayRule) error {
	switch {
	case name == "":
		return fmt.Errorf("chaos: DefineDelayRule: a rule needs a name")
	case rule == nil:
		return fmt.Errorf("chaos: DefineDelayRule: rule %q is nil", name)
	case m.rules[name] != nil:
		return fmt.Errorf("chaos: DefineDelayRule: a rule named %q is defined already", name)
	}
	m.rules[name] = rule
	return nil
}

// SetDelayRule defines rule under name and puts it in force now, in place
// of any other.
func (m *Monkey) SetDelayRule(name string, rule labrpc.DelayRule) error {
	if err := m.DefineDelayRule(name, rule); err != nil {
		return err
	}
	return m.Apply(fault.Fault{Kind: fault.DelayRule, Name: name})
}

// applyMode switches a validated network mode on the network and reports
// whether that changed it.
func (m *Monkey) applyMode(f fault.Fault) bool {
	n := m.net
	switch f.Kind {
	case fault.Unreliable:
		if n.IsReliable() != f.On {
			return false
		}
		n.Reliable(!f.On)
	case fault.Reordering:
		if n.IsLongReordering() == f.On {
			return false
		}
		n.LongReordering(f.On)
	case fault.LongDelays:
		if n.IsLongDelays() == f.On {
			return false
		}
		n.LongDelays(f.On)
	case fault.Duplicate:
		p := n.Params()
		if p.Duplicate == f.Rate {
			return false
		}
		p.Duplicate = f.Rate
		_ = n.SetParams(p) // the rate was validated
	default: // DelayRule
		if m.rule == f.Name {
			return false
		}
		m.rule = f.Name
		n.SetDelayRule(m.rules[f.Name]) // nil for ""
	}
	return true
}
