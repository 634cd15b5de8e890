package testbed

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
)

// A Nemesis is a run's faults: a schedule, a reactive nemesis, or both.
type Nemesis struct {
	// Schedule is the faults, at times from the moment the clients have
	// started.
	Schedule []chaos.Step
	// Heals are the moments, on the schedule's clock, at which it has
	// brought every link up and every host back and leaves them so for at
	// least the run's Progress: progress is checked after each.
	Heals []time.Duration
	// Reactive, if set, starts a nemesis that watches the run (a
	// leader's first entries, a vote just cast) and strikes through the
	// cluster's monkey, so its faults are logged too; it returns what
	// stops it.
	Reactive func(e *Env) (stop func(), err error)
	// Skip, if set, are the faults the nemesis asks for that are not
	// applied, by their number (from 0) in the order it asks for them,
	// Record.Attempts's: what shrinking takes out of a nemesis that reacts
	// to the run and so cannot be replaced by a schedule.
	Skip []int
}

// start schedules the faults and starts the reactive nemesis; it returns
// what stops the latter.
func (n Nemesis) start(e *Env, attempts *[]chaos.Step) (func(), error) {
	m := e.Cluster.Monkey()
	skip := map[int]bool{}
	for _, k := range n.Skip {
		skip[k] = true
	}
	m.SetFilter(func(f fault.Fault) bool {
		*attempts = append(*attempts, chaos.Step{At: e.World.Now() - e.start, Fault: f})
		return !skip[len(*attempts)-1]
	})
	if err := m.Schedule(n.Schedule); err != nil {
		return nil, err
	}
	stop := func() { m.SetFilter(nil) }
	if n.Reactive == nil {
		return stop, nil
	}
	halt, err := n.Reactive(e)
	if err != nil {
		return nil, err
	}
	return func() { halt(); stop() }, nil
}

// Bursts describes a random nemesis that strikes in bursts, each followed
// by a heal and a calm in which progress is checked.
type Bursts struct {
	// Hosts is how many servers the faults strike.
	Hosts int
	// Faults is what each burst draws, as chaos.Generate draws it; the
	// zero value draws no server faults (Clients' isolations only).
	Faults chaos.NemesisConfig
	// Clients are isolated from every server within each burst, as
	// Isolations draws them, until its heal at the latest.
	Clients Isolations
	// Burst is the mean length of a burst (each drawn from [Burst/2,
	// 3*Burst/2]); Calm the length of the calm after each heal, at least
	// the run's Progress.
	Burst, Calm time.Duration
	// Length is how long the schedule may last, the run's Length.
	Length time.Duration
	// LastAtMost, if set, bounds the last burst too, which otherwise lasts
	// until Length: cut there, it is healed, and the run is calm to its
	// end (a service that must not be without its servers for longer, say).
	LastAtMost time.Duration
	// Modes are the network's modes at the start, which every heal
	// brings back.
	Modes chaos.Modes
}

// Generate draws the schedule from rng: bursts of random faults, each
// ended by a heal (every link up, every client rejoined, every host the
// burst killed restarted, the network's modes as they were), then a calm;
// the last burst, which has no room for a calm, lasts until Length, where
// the run heals, or LastAtMost.
func (b Bursts) Generate(rng *rand.Rand) (Nemesis, error) {
	if b.Burst <= 0 || b.Calm <= 0 {
		return Nemesis{}, fmt.Errorf("bursts of %v with calms of %v: want both positive", b.Burst, b.Calm)
	}
	var n Nemesis
	for at := time.Duration(0); ; {
		burst := b.Burst/2 + time.Duration(rng.Int64N(int64(b.Burst)+1))
		last := at+burst+b.Calm > b.Length
		cut := false
		if last {
			burst = b.Length - at
			if b.LastAtMost > 0 && burst > b.LastAtMost {
				burst, cut = b.LastAtMost, true
			}
		}
		var steps []chaos.Step
		if b.Faults != (chaos.NemesisConfig{}) {
			var err error
			if steps, err = chaos.Generate(rng, b.Hosts, b.Faults, burst, b.Modes); err != nil {
				return Nemesis{}, err
			}
		}
		isolations, err := b.Clients.Generate(rng, 0, burst)
		if err != nil {
			return Nemesis{}, err
		}
		steps = merge(steps, isolations)
		dead := map[int]bool{}
		for _, s := range steps {
			switch s.Fault.Kind {
			case fault.Kill:
				dead[s.Fault.Host] = true
			case fault.Restart:
				delete(dead, s.Fault.Host)
			}
			s.At += at
			n.Schedule = append(n.Schedule, s)
		}
		if last && !cut {
			return n, nil
		}
		at += burst
		heal := []fault.Fault{{Kind: fault.Heal}}
		for h := range b.Hosts {
			if dead[h] {
				heal = append(heal, fault.Fault{Kind: fault.Restart, Host: h})
			}
		}
		for _, f := range append(heal, b.Modes.Faults()...) {
			n.Schedule = append(n.Schedule, chaos.Step{At: at, Fault: f})
		}
		if cut {
			return n, nil // no room for a calm: no progress is checked
		}
		n.Heals = append(n.Heals, at)
		at += b.Calm
	}
}
