// Package chaos is the ChaosMonkey: it partitions, isolates, cuts one-way
// links, kills and restarts hosts, makes their clocks drift, and switches
// the network's loss, reordering, long delays, duplication and delay rules,
// by hand, on a script or at random from the world's seed. Every fault it
// applies is folded into the world's trace hash and written to a fault log
// that tests print on failure, history drawings overlay and figures shade.
//
// A monkey bounds what it may cost: a nemesis draws a fault at most every
// MinInterval/2 of virtual time, and the fault log holds at most
// DefaultLogLimit faults (see Monkey.SetLogLimit); a fault past the limit is
// refused with an error, or, from a script or a nemesis, with a panic that
// says why.
package chaos

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// DefaultLogLimit is how many faults a monkey's log holds unless
// SetLogLimit says otherwise: at least 50 virtual seconds of a nemesis at
// MinInterval (about 130 with DefaultWeights, many of whose faults change
// nothing and are not logged), over 10 virtual hours at the sweeps' 400 ms,
// and about 20 MB (some 185 bytes a fault). A log longer than that is more
// than a person, or a drawing of the history, can read; a run that reaches
// it by mistake stops with a message that says why instead of exhausting
// memory.
const DefaultLogLimit = 100_000

// Hooks let the system under test take part in kills and restarts. Kill
// should stop the host's nodes (at least Host.Kill) and Restart should
// restart the host and build fresh nodes from its persisted state. A nil
// hook just kills or restarts the host.
type Hooks struct {
	Kill    func(host int)
	Restart func(host int)
}

// A Monkey applies faults to a set of hosts on a network: the servers it
// was made with, and the clients added to it (AddClient).
//
// Faults name hosts by index: the servers first, in the order New was
// given them, then the clients in the order they were added. A client
// takes part in no partition, kill or restart, and isolating a server
// cuts it off from the other servers only, as a partition does: clients
// reach every server unless a fault names the client itself (Isolate
// cuts it off from every server, Cut one link) or a link the client uses.
type Monkey struct {
	w       *sim.World
	net     *labrpc.Network
	hosts   []*sim.Host // the servers, then the clients
	servers int
	names   []string // host names, for the log
	hooks   Hooks
	log     fault.Log
	limit   int // the most faults the log may hold
	links   links
	rules   map[string]labrpc.DelayRule // the delay rules faults may name
	rule    string                      // the delay rule in force ("": none)
	filter  func(f fault.Fault) bool    // see SetFilter
}

// New returns a monkey for hosts (at least one, each once, all of net's
// world) on net.
func New(net *labrpc.Network, hosts []*sim.Host, hooks Hooks) (*Monkey, error) {
	if net == nil {
		return nil, fmt.Errorf("chaos: New: a nil network")
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("chaos: New: need at least one host, got 0")
	}
	seen := map[*sim.Host]int{}
	for i, h := range hosts {
		if h == nil {
			return nil, fmt.Errorf("chaos: New: host %d is nil", i)
		}
		if j, ok := seen[h]; ok {
			return nil, fmt.Errorf("chaos: New: hosts %d and %d are both %s", j, i, h.Name())
		}
		seen[h] = i
		if h.World() != net.World() {
			return nil, fmt.Errorf("chaos: New: host %d (%s) is of another world than the network", i, h.Name())
		}
	}
	return &Monkey{w: net.World(), net: net, hosts: slices.Clip(hosts), servers: len(hosts), names: logNames(hosts), hooks: hooks,
		limit: DefaultLogLimit, links: newLinks(len(hosts)), rules: map[string]labrpc.DelayRule{}}, nil
}

// AddClient adds a client's host, of the monkey's world and not yet one of
// its hosts, and returns the index faults name it by. The log calls it by
// its name.
func (m *Monkey) AddClient(h *sim.Host) (int, error) {
	if h == nil {
		return 0, fmt.Errorf("chaos: AddClient: a nil host")
	}
	if h.World() != m.w {
		return 0, fmt.Errorf("chaos: AddClient: %s is of another world than the monkey", h.Name())
	}
	if i := slices.Index(m.hosts, h); i >= 0 {
		return 0, fmt.Errorf("chaos: AddClient: %s is already host %d", h.Name(), i)
	}
	m.hosts = append(m.hosts, h)
	m.names = append(m.names, h.Name())
	m.links.grow()
	return len(m.hosts) - 1, nil
}

// logNames returns what the fault log calls the hosts. Hosts named after
// one group and numbered in order (raft0, raft1, ...) are the group's
// servers, which the log names by number ("kill server 0", "partition
// {0 1} | {2}"); other hosts keep their names (a cluster's machines shared
// by several groups are h0, h1, ...: one letter, not a group's name).
func logNames(hosts []*sim.Host) []string {
	names := make([]string, len(hosts))
	prefix, _ := strings.CutSuffix(hosts[0].Name(), "0")
	servers := len(prefix) > 1
	for i, h := range hosts {
		names[i] = h.Name()
		servers = servers && h.Name() == prefix+strconv.Itoa(i)
	}
	if servers {
		for i := range names {
			names[i] = strconv.Itoa(i)
		}
	}
	return names
}

// Hosts returns how many servers the monkey works on (hosts 0 to
// Hosts()-1); its clients follow.
func (m *Monkey) Hosts() int { return m.servers }

// Clients returns how many clients have been added (hosts Hosts() to
// Hosts()+Clients()-1).
func (m *Monkey) Clients() int { return len(m.hosts) - m.servers }

// SetLogLimit sets how many faults the log may hold (DefaultLogLimit until
// then); it must be at least one and at least what the log holds.
func (m *Monkey) SetLogLimit(n int) error {
	if n < 1 || n < len(m.log) {
		return fmt.Errorf("chaos: SetLogLimit: %d is below 1 or the %d faults the log holds", n, len(m.log))
	}
	m.limit = n
	return nil
}

// Apply applies f now, logs it and folds it into the trace hash. A fault
// that changes nothing (killing a dead host, restarting a live one,
// healing when no link fault is in force, cutting what is cut, switching
// on a mode that is on) is not logged. It returns an error, and applies
// nothing, if f is malformed or the log is full.
func (m *Monkey) Apply(f fault.Fault) error {
	if err := m.validate(f); err != nil {
		return err
	}
	if err := m.room(f); err != nil {
		return err
	}
	m.apply(f)
	return nil
}

// room returns an error if the log has no room for f.
func (m *Monkey) room(f fault.Fault) error {
	if len(m.log) < m.limit {
		return nil
	}
	return fmt.Errorf("chaos: %s not applied: the fault log holds %d faults, its limit (Monkey.SetLogLimit raises it)",
		f.Format(m.names), m.limit)
}

// applyLater applies a validated fault from a script or a nemesis, where no
// caller can take an error: a full log panics, saying why.
func (m *Monkey) applyLater(f fault.Fault, by string) {
	if err := m.room(f); err != nil {
		panic(fmt.Sprintf("%v, at %v of virtual time (%s)", err, m.w.Now(), by))
	}
	m.apply(f)
}

// SetFilter makes the monkey show filter every fault it is about to
// apply (by Apply, a script or a nemesis), in order: one that filter
// refuses is neither applied nor logged, as if it had never been asked
// for. Nil, the default, applies every fault. Shrinking a failing run
// uses it to take faults out of a nemesis that reacts to the run.
func (m *Monkey) SetFilter(filter func(f fault.Fault) bool) { m.filter = filter }

// apply applies a validated fault and logs it if it changed anything.
func (m *Monkey) apply(f fault.Fault) {
	if m.filter != nil && !m.filter(f) {
		return
	}
	var changed bool
	switch f.Kind {
	case fault.Heal, fault.Partition, fault.Bridge, fault.Isolate, fault.Cut, fault.Rejoin, fault.Uncut:
		changed = m.applyLinks(f)
	case fault.Kill:
		if changed = m.hosts[f.Host].Alive(); !changed {
			break
		}
		if m.hooks.Kill != nil {
			m.hooks.Kill(f.Host)
		} else {
			m.hosts[f.Host].Kill()
		}
	case fault.Restart:
		if changed = !m.hosts[f.Host].Alive(); !changed {
			break
		}
		if m.hooks.Restart != nil {
			m.hooks.Restart(f.Host)
		} else {
			m.hosts[f.Host].Restart()
		}
	case fault.Drift:
		_ = m.hosts[f.Host].SetClockRate(f.Rate) // the rate was validated
		changed = true
	default:
		changed = m.applyMode(f)
	}
	if changed {
		m.record(f)
	}
}

// record logs f and folds it into the trace hash.
func (m *Monkey) record(f fault.Fault) {
	names := m.names
	if f.Kind == fault.Partition || f.Kind == fault.Bridge {
		names = names[:m.servers] // the clients are on no side
	}
	e := fault.Event{At: m.w.Now(), Fault: f, Text: f.Format(names)}
	switch f.Kind {
	case fault.Isolate, fault.Rejoin, fault.Cut, fault.Uncut, fault.Kill, fault.Restart, fault.Drift, fault.Bridge:
		e.Host = m.hosts[f.Host].Name()
	}
	m.log = append(m.log, e)
	on := uint64(0)
	if f.On {
		on = 1
	}
	m.w.Fold(sim.TagFault, uint64(f.Kind), uint64(f.Host), uint64(f.To), math.Float64bits(f.Rate), on, sim.StringWord(f.Name))
	for _, g := range f.Groups {
		m.w.Fold(uint64(len(g)))
		for _, h := range g {
			m.w.Fold(uint64(h))
		}
	}
	m.w.Tracef("chaos: %s", e.Text)
	if m.w.Recording() {
		ev := sim.Event{Kind: sim.KindFault, Host: -1, Peer: -1, What: e.Text}
		switch hs := m.Struck(f); {
		case f.Kind == fault.Cut || f.Kind == fault.Uncut:
			ev.Host, ev.Peer = hs[0], hs[1]
		case len(hs) == 1:
			ev.Host = hs[0]
		}
		m.w.Record(ev)
	}
}

// Struck returns the world IDs of the hosts f strikes (see
// fault.Fault.Struck).
func (m *Monkey) Struck(f fault.Fault) []int {
	hs := f.Struck(m.servers)
	for i, h := range hs {
		if h >= 0 && h < len(m.hosts) {
			hs[i] = m.hosts[h].ID()
		}
	}
	return hs
}

// Connected reports whether messages from host a reach host b, servers or
// clients. It panics, naming them, if a or b is not one of the monkey's
// hosts.
func (m *Monkey) Connected(a, b int) bool {
	for _, h := range []int{a, b} {
		if h < 0 || h >= len(m.hosts) {
			panic(fmt.Sprintf("chaos: Connected(%d, %d): host %d is not in 0..%d", a, b, h, len(m.hosts)-1))
		}
	}
	return m.net.LinkUp(m.hosts[a], m.hosts[b])
}

// Matrix returns the servers' connectivity matrix: Matrix()[a][b] is
// Connected(a, b).
func (m *Monkey) Matrix() [][]bool {
	mx := make([][]bool, m.servers)
	for a := range mx {
		mx[a] = make([]bool, m.servers)
		for b := range mx[a] {
			mx[a][b] = a == b || m.Connected(a, b)
		}
	}
	return mx
}

// Alive reports which servers are alive.
func (m *Monkey) Alive() []bool {
	alive := make([]bool, m.servers)
	for i, h := range m.hosts[:m.servers] {
		alive[i] = h.Alive()
	}
	return alive
}

// Log returns the faults applied so far, in order.
func (m *Monkey) Log() fault.Log { return m.log }

// A Step is one fault of a script, At after the script starts.
type Step struct {
	At    time.Duration
	Fault fault.Fault
}

// Schedule checks a script and schedules its faults relative to now. A
// step that finds the fault log full panics (see SetLogLimit).
func (m *Monkey) Schedule(script []Step) error {
	for i, s := range script {
		if s.At < 0 {
			return fmt.Errorf("chaos: script step %d (%v) has negative time %v", i, s.Fault, s.At)
		}
		if s.At > math.MaxInt64-m.w.Now() {
			return fmt.Errorf("chaos: script step %d (%v) at %v from %v is past the end of virtual time", i, s.Fault, s.At, m.w.Now())
		}
		if err := m.validate(s.Fault); err != nil {
			return fmt.Errorf("chaos: script step %d: %w", i, err)
		}
	}
	for i, s := range script {
		f := s.Fault
		m.w.After(s.At, func() { m.applyLater(f, fmt.Sprintf("script step %d", i)) })
	}
	return nil
}
