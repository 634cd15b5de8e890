package chaos

import (
	"fmt"
	"math"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim"
)

// Weights say how often a nemesis picks each kind of fault, relative to each
// other.
type Weights struct {
	Partition, Bridge, Isolate, Cut, Kill, Restart, Heal float64
}

// DefaultWeights mixes every kind of fault, healing and restarting as often
// as breaking.
func DefaultWeights() Weights {
	return Weights{Partition: 2, Bridge: 1, Isolate: 1, Cut: 1, Kill: 1, Restart: 2, Heal: 4}
}

// A weight is one kind of fault's weight.
type weight struct {
	kind fault.Kind
	name string // the field of Weights
	w    float64
}

// list returns the weights in the order pick draws them.
func (wt Weights) list() []weight {
	return []weight{
		{fault.Partition, "Partition", wt.Partition}, {fault.Bridge, "Bridge", wt.Bridge},
		{fault.Isolate, "Isolate", wt.Isolate}, {fault.Cut, "Cut", wt.Cut},
		{fault.Kill, "Kill", wt.Kill}, {fault.Restart, "Restart", wt.Restart}, {fault.Heal, "Heal", wt.Heal},
	}
}

// NemesisConfig configures a random nemesis.
type NemesisConfig struct {
	// Interval is the mean time between faults; each gap is drawn
	// uniformly from [Interval/2, 3*Interval/2].
	Interval time.Duration
	Weights  Weights
	// MaxDead bounds how many hosts may be dead at once; 0 means a
	// minority, (n-1)/2. Set Weights.Kill to 0 for no kills at all.
	MaxDead int
}

// A Nemesis applies random faults to a monkey's hosts at random times, all
// drawn from the world's random number generator.
type Nemesis struct {
	m     *Monkey
	cfg   NemesisConfig
	total float64
	timer *sim.Timer
}

// StartNemesis checks cfg and starts a nemesis; its first fault comes after
// one gap.
func (m *Monkey) StartNemesis(cfg NemesisConfig) (*Nemesis, error) {
	if cfg.Interval <= 0 {
		return nil, fmt.Errorf("chaos: nemesis interval %v is not positive", cfg.Interval)
	}
	total := 0.0
	for _, wt := range cfg.Weights.list() {
		if !(wt.w >= 0) || math.IsInf(wt.w, 1) {
			return nil, fmt.Errorf("chaos: nemesis weight %s = %v is not a finite non-negative number", wt.name, wt.w)
		}
		total += wt.w
	}
	if total == 0 {
		return nil, fmt.Errorf("chaos: nemesis weights are all zero")
	}
	if cfg.MaxDead < 0 || cfg.MaxDead > len(m.hosts) {
		return nil, fmt.Errorf("chaos: nemesis MaxDead %d is not in 0..%d", cfg.MaxDead, len(m.hosts))
	}
	if cfg.MaxDead == 0 {
		cfg.MaxDead = (len(m.hosts) - 1) / 2
	}
	n := &Nemesis{m: m, cfg: cfg, total: total}
	n.timer = m.w.NewTimer(n.tick)
	n.arm()
	return n, nil
}

// Stop stops the nemesis. Faults already applied stay.
func (n *Nemesis) Stop() { n.timer.Stop() }

func (n *Nemesis) arm() {
	iv := n.cfg.Interval
	n.timer.Reset(n.m.w.RandDuration(iv/2, iv+iv/2))
}

func (n *Nemesis) tick() {
	if f, ok := n.pick(); ok {
		n.m.apply(f)
	}
	n.arm()
}

// pick draws a fault; it reports false when the drawn kind has nothing to
// act on (no dead host to restart, or the dead limit reached).
func (n *Nemesis) pick() (fault.Fault, bool) {
	rng := n.m.w.Rand()
	hosts := len(n.m.hosts)
	r := rng.Float64() * n.total
	weights := n.cfg.Weights.list()
	k := 0
	for k < len(weights)-1 && r >= weights[k].w {
		r -= weights[k].w
		k++
	}
	switch weights[k].kind {
	case fault.Partition:
		perm := rng.Perm(hosts)
		k := 1 + rng.IntN(max(hosts-1, 1))
		return fault.Fault{Kind: fault.Partition, Groups: [][]int{perm[:k], perm[k:]}}, true
	case fault.Bridge:
		if hosts < 3 {
			return fault.Fault{}, false
		}
		perm := rng.Perm(hosts)
		k := 2 + rng.IntN(hosts-2)
		return fault.Fault{Kind: fault.Bridge, Host: perm[0], Groups: [][]int{perm[1:k], perm[k:]}}, true
	case fault.Isolate:
		return fault.Fault{Kind: fault.Isolate, Host: rng.IntN(hosts)}, true
	case fault.Cut:
		if hosts < 2 {
			return fault.Fault{}, false
		}
		from := rng.IntN(hosts)
		to := (from + 1 + rng.IntN(hosts-1)) % hosts
		return fault.Fault{Kind: fault.Cut, Host: from, To: to}, true
	case fault.Kill:
		live, dead := n.split()
		if len(dead) >= n.cfg.MaxDead || len(live) == 0 {
			return fault.Fault{}, false
		}
		return fault.Fault{Kind: fault.Kill, Host: live[rng.IntN(len(live))]}, true
	case fault.Restart:
		_, dead := n.split()
		if len(dead) == 0 {
			return fault.Fault{}, false
		}
		return fault.Fault{Kind: fault.Restart, Host: dead[rng.IntN(len(dead))]}, true
	default:
		return fault.Fault{Kind: fault.Heal}, true
	}
}

// split returns the live and the dead hosts.
func (n *Nemesis) split() (live, dead []int) {
	for i, h := range n.m.hosts {
		if h.Alive() {
			live = append(live, i)
		} else {
			dead = append(dead, i)
		}
	}
	return live, dead
}
