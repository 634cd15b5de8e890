package chaos

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/replab/replab/chaos/fault"
)

// Modes are the network's modes a schedule starts from: which of
// Unreliable, Reordering and LongDelays are on.
type Modes struct {
	Unreliable, Reordering, LongDelays bool
}

// Generate draws, from rng, the faults a nemesis with cfg would apply to
// hosts servers over length of virtual time, as a script: the same kinds,
// gaps and choices, drawn before the run from a model of the servers (all
// alive and connected at the start, the network in modes) instead of
// during it from the world. A schedule drawn so is data: it can be
// printed, stored, cut down and replayed, and the world's own random
// numbers are left to the nodes and the network.
//
// The model knows only the schedule's own faults: a host that something
// else kills stays alive in it, and its restart is not drawn.
func Generate(rng *rand.Rand, hosts int, cfg NemesisConfig, length time.Duration, modes Modes) ([]Step, error) {
	if rng == nil {
		return nil, fmt.Errorf("chaos: Generate needs a random number generator")
	}
	if hosts < 1 {
		return nil, fmt.Errorf("chaos: Generate on %d hosts: want at least one", hosts)
	}
	if length < 0 {
		return nil, fmt.Errorf("chaos: Generate for a negative length, %v", length)
	}
	d, err := cfg.drawer(hosts)
	if err != nil {
		return nil, err
	}
	m := newModel(hosts, modes)
	var steps []Step
	iv := cfg.Interval
	for at := time.Duration(0); ; {
		at += iv/2 + time.Duration(rng.Int64N(int64(iv)+1))
		if at > length {
			return steps, nil
		}
		if f, ok := d.pick(rng, hosts, m); ok && m.apply(f) {
			steps = append(steps, Step{At: at, Fault: f})
		}
	}
}

// A model is the state of the servers and the network as a schedule's
// faults leave it.
type model struct {
	up    []bool
	links links
	modes Modes
}

func newModel(hosts int, modes Modes) *model {
	m := &model{up: make([]bool, hosts), links: newLinks(hosts), modes: modes}
	for h := range m.up {
		m.up[h] = true
	}
	return m
}

func (m *model) alive(h int) bool     { return m.up[h] }
func (m *model) isolated(h int) bool  { return m.links.isolated[h] }
func (m *model) cut(a, b int) bool    { return m.links.cut[a][b] }
func (m *model) reliable() bool       { return !m.modes.Unreliable }
func (m *model) longReordering() bool { return m.modes.Reordering }
func (m *model) longDelays() bool     { return m.modes.LongDelays }

// apply applies one of pick's faults to the model and reports whether it
// changed anything (what does not, the monkey would not log either).
func (m *model) apply(f fault.Fault) bool {
	l := &m.links
	switch f.Kind {
	case fault.Heal:
		changed := l.inForce()
		l.clear()
		return changed
	case fault.Partition, fault.Bridge:
		bridge := -1
		if f.Kind == fault.Bridge {
			bridge = f.Host
		}
		return l.partition(splitOf(len(m.up), f.Groups, bridge))
	case fault.Isolate:
		changed := !l.isolated[f.Host]
		l.isolated[f.Host] = true
		return changed
	case fault.Rejoin:
		l.isolated[f.Host] = false
		return true
	case fault.Cut:
		changed := !l.cut[f.Host][f.To]
		l.cut[f.Host][f.To] = true
		return changed
	case fault.Uncut:
		l.cut[f.Host][f.To] = false
		return true
	case fault.Kill:
		m.up[f.Host] = false
	case fault.Restart:
		m.up[f.Host] = true
	case fault.Unreliable:
		m.modes.Unreliable = f.On
	case fault.Reordering:
		m.modes.Reordering = f.On
	default: // LongDelays
		m.modes.LongDelays = f.On
	}
	return true
}

// Faults returns the faults that switch the network's modes to m, each
// mode's whether on or off (a fault that changes nothing is not logged).
func (m Modes) Faults() []fault.Fault {
	return []fault.Fault{
		{Kind: fault.Unreliable, On: m.Unreliable},
		{Kind: fault.Reordering, On: m.Reordering},
		{Kind: fault.LongDelays, On: m.LongDelays},
	}
}
