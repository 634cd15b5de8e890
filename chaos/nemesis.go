package chaos

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/sim"
)

// MinInterval is the shortest mean time between a nemesis's faults. A
// message crosses the default network in at most 300 µs; with gaps of at
// least MinInterval/2 some can cross between two faults, so each fault
// acts on traffic, and a nemesis draws at most 2000 faults per virtual
// second, which takes the fault log at least 50 virtual seconds to fill
// (see DefaultLogLimit). Faster faults test nothing more and only flood
// the log: an interval of 1 ns once drew 1.7 billion faults per virtual
// second and exhausted the machine's memory.
const MinInterval = time.Millisecond

// Weights say how often a nemesis picks each kind of fault, relative to each
// other. Rejoin lifts the isolation of a host that has one, Uncut the cut
// of a link that has one; Unreliable, Reordering and LongDelays switch the
// network's mode of that name to the other state.
type Weights struct {
	Partition, Bridge, Isolate, Cut, Kill, Restart, Heal float64
	Rejoin, Uncut, Unreliable, Reordering, LongDelays    float64
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
		{fault.Rejoin, "Rejoin", wt.Rejoin}, {fault.Uncut, "Uncut", wt.Uncut}, {fault.Unreliable, "Unreliable", wt.Unreliable},
		{fault.Reordering, "Reordering", wt.Reordering}, {fault.LongDelays, "LongDelays", wt.LongDelays},
	}
}

// NemesisConfig configures a random nemesis.
type NemesisConfig struct {
	// Interval is the mean time between faults, at least MinInterval;
	// each gap is drawn uniformly from [Interval/2, 3*Interval/2].
	Interval time.Duration
	Weights  Weights
	// MaxDead bounds how many hosts may be dead at once; 0 means a
	// minority, (n-1)/2. Set Weights.Kill to 0 for no kills at all.
	MaxDead int
}

// A Nemesis applies random faults to a monkey's servers at random times, all
// drawn from the world's stream "nemesis" (sim.World.Stream). A fault that finds the
// monkey's log full panics, saying why (see Monkey.SetLogLimit).
type Nemesis struct {
	m     *Monkey
	d     drawer
	by    string // what the nemesis is, for a panic
	timer *sim.Timer
	rng   *rand.Rand // the world's stream "nemesis"
}

// A drawer draws a nemesis's faults from a checked configuration.
type drawer struct {
	cfg   NemesisConfig
	total float64
	last  int // the last kind with a positive weight, in Weights.list's order
}

// drawer checks cfg for servers hosts and returns what draws its faults,
// with MaxDead 0 made a minority.
func (cfg NemesisConfig) drawer(servers int) (drawer, error) {
	if cfg.Interval < MinInterval {
		return drawer{}, fmt.Errorf("chaos: nemesis interval %v is below the minimum, %v (MinInterval): faults faster than messages cross the network only flood the fault log", cfg.Interval, MinInterval)
	}
	if cfg.Interval > math.MaxInt64/3*2 {
		return drawer{}, fmt.Errorf("chaos: nemesis interval %v is so long that gaps of 3/2 of it overflow virtual time", cfg.Interval)
	}
	total, last := 0.0, 0
	for k, wt := range cfg.Weights.list() {
		if !(wt.w >= 0) || math.IsInf(wt.w, 1) {
			return drawer{}, fmt.Errorf("chaos: nemesis weight %s = %v is not a finite non-negative number", wt.name, wt.w)
		}
		if wt.w > 0 {
			last = k
		}
		total += wt.w
	}
	if total == 0 {
		return drawer{}, fmt.Errorf("chaos: nemesis weights are all zero")
	}
	if math.IsInf(total, 1) {
		return drawer{}, fmt.Errorf("chaos: nemesis weights add up to more than the largest float64")
	}
	if cfg.MaxDead < 0 || cfg.MaxDead > servers {
		return drawer{}, fmt.Errorf("chaos: nemesis MaxDead %d is not in 0..%d", cfg.MaxDead, servers)
	}
	if cfg.MaxDead == 0 {
		cfg.MaxDead = (servers - 1) / 2
	}
	return drawer{cfg: cfg, total: total, last: last}, nil
}

// StartNemesis checks cfg and starts a nemesis; its first fault comes after
// one gap.
func (m *Monkey) StartNemesis(cfg NemesisConfig) (*Nemesis, error) {
	d, err := cfg.drawer(m.servers)
	if err != nil {
		return nil, err
	}
	n := &Nemesis{m: m, d: d, rng: m.w.Stream("nemesis"), by: fmt.Sprintf("nemesis, interval %v", cfg.Interval)}
	n.timer = m.w.NewTimer(n.tick)
	n.arm()
	return n, nil
}

// Stop stops the nemesis. Faults already applied stay.
func (n *Nemesis) Stop() { n.timer.Stop() }

func (n *Nemesis) arm() {
	iv := n.d.cfg.Interval
	n.timer.Reset(sim.Duration(n.rng, iv/2, iv+iv/2))
}

func (n *Nemesis) tick() {
	if f, ok := n.d.pick(n.rng, n.m.servers, monkeyView{n.m}); ok {
		n.m.applyLater(f, n.by)
	}
	n.arm()
}

// A view is what a nemesis sees of the servers and the network when it
// draws its next fault: the monkey's own state, or, for a schedule drawn
// before the run (Generate), a model of it.
type view interface {
	alive(h int) bool
	isolated(h int) bool
	cut(a, b int) bool
	reliable() bool
	longReordering() bool
	longDelays() bool
}

// pick draws a fault on hosts servers as v shows them; it reports false
// when the drawn kind has nothing to act on (no dead host to restart, or
// the dead limit reached).
func (d drawer) pick(rng *rand.Rand, hosts int, v view) (fault.Fault, bool) {
	r := rng.Float64() * d.total
	weights := d.cfg.Weights.list()
	k := 0
	for k < d.last && r >= weights[k].w {
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
		live, dead := split(hosts, v)
		if len(dead) >= d.cfg.MaxDead || len(live) == 0 {
			return fault.Fault{}, false
		}
		return fault.Fault{Kind: fault.Kill, Host: live[rng.IntN(len(live))]}, true
	case fault.Restart:
		_, dead := split(hosts, v)
		if len(dead) == 0 {
			return fault.Fault{}, false
		}
		return fault.Fault{Kind: fault.Restart, Host: dead[rng.IntN(len(dead))]}, true
	case fault.Rejoin:
		var isolated []int
		for h := range hosts {
			if v.isolated(h) {
				isolated = append(isolated, h)
			}
		}
		if len(isolated) == 0 {
			return fault.Fault{}, false
		}
		return fault.Fault{Kind: fault.Rejoin, Host: isolated[rng.IntN(len(isolated))]}, true
	case fault.Uncut:
		var cut [][2]int
		for a := range hosts {
			for b := range hosts {
				if v.cut(a, b) {
					cut = append(cut, [2]int{a, b})
				}
			}
		}
		if len(cut) == 0 {
			return fault.Fault{}, false
		}
		c := cut[rng.IntN(len(cut))]
		return fault.Fault{Kind: fault.Uncut, Host: c[0], To: c[1]}, true
	case fault.Unreliable:
		return fault.Fault{Kind: fault.Unreliable, On: v.reliable()}, true
	case fault.Reordering:
		return fault.Fault{Kind: fault.Reordering, On: !v.longReordering()}, true
	case fault.LongDelays:
		return fault.Fault{Kind: fault.LongDelays, On: !v.longDelays()}, true
	default:
		return fault.Fault{Kind: fault.Heal}, true
	}
}

// split returns the live and the dead of hosts servers.
func split(hosts int, v view) (live, dead []int) {
	for h := range hosts {
		if v.alive(h) {
			live = append(live, h)
		} else {
			dead = append(dead, h)
		}
	}
	return live, dead
}

// A monkeyView shows a nemesis the monkey's servers and network as they
// are.
type monkeyView struct{ m *Monkey }

func (v monkeyView) alive(h int) bool     { return v.m.hosts[h].Alive() }
func (v monkeyView) isolated(h int) bool  { return v.m.links.isolated[h] }
func (v monkeyView) cut(a, b int) bool    { return v.m.links.cut[a][b] }
func (v monkeyView) reliable() bool       { return v.m.net.IsReliable() }
func (v monkeyView) longReordering() bool { return v.m.net.IsLongReordering() }
func (v monkeyView) longDelays() bool     { return v.m.net.IsLongDelays() }
