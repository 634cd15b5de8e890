// Package chaos is the ChaosMonkey: it partitions, isolates, cuts one-way
// links, kills and restarts hosts, and makes their clocks drift, by hand, on
// a script or at random from the world's seed. Every fault it applies is
// folded into the world's trace hash and written to a fault log that tests
// print on failure and figures overlay.
package chaos

import (
	"errors"
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

// Hooks let the system under test take part in kills and restarts. Kill
// should stop the host's nodes (at least Host.Kill) and Restart should
// restart the host and build fresh nodes from its persisted state. A nil
// hook just kills or restarts the host.
type Hooks struct {
	Kill    func(host int)
	Restart func(host int)
}

// A Monkey applies faults to a set of hosts on a network.
type Monkey struct {
	w     *sim.World
	net   *labrpc.Network
	hosts []*sim.Host
	names []string // host names, for the log
	hooks Hooks
	log   fault.Log
}

// New returns a monkey for hosts (at least one) on net.
func New(net *labrpc.Network, hosts []*sim.Host, hooks Hooks) (*Monkey, error) {
	if len(hosts) == 0 {
		return nil, errors.New("chaos: New: need at least one host, got 0")
	}
	return &Monkey{w: net.World(), net: net, hosts: hosts, names: logNames(hosts), hooks: hooks}, nil
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

// Hosts returns how many hosts the monkey works on.
func (m *Monkey) Hosts() int { return len(m.hosts) }

// Apply applies f now, logs it and folds it into the trace hash. A fault
// that changes nothing (killing a dead host, restarting a live one,
// healing links that are all up, cutting what is cut) is not logged.
func (m *Monkey) Apply(f fault.Fault) error {
	if err := validate(f, len(m.hosts)); err != nil {
		return err
	}
	m.apply(f)
	return nil
}

// apply applies a validated fault.
func (m *Monkey) apply(f fault.Fault) {
	var before [][]bool
	switch f.Kind {
	case fault.Heal, fault.Partition, fault.Bridge, fault.Isolate, fault.Cut:
		before = m.Matrix()
	}
	switch f.Kind {
	case fault.Heal:
		m.net.HealLinks()
	case fault.Partition:
		m.partition(f.Groups, -1)
	case fault.Bridge:
		m.partition(f.Groups, f.Host)
	case fault.Isolate:
		for j := range m.hosts {
			if j != f.Host {
				m.setLinks(f.Host, j, false)
			}
		}
	case fault.Cut:
		m.net.SetLink(m.hosts[f.Host], m.hosts[f.To], false)
	case fault.Kill:
		if !m.hosts[f.Host].Alive() {
			return
		}
		if m.hooks.Kill != nil {
			m.hooks.Kill(f.Host)
		} else {
			m.hosts[f.Host].Kill()
		}
	case fault.Restart:
		if m.hosts[f.Host].Alive() {
			return
		}
		if m.hooks.Restart != nil {
			m.hooks.Restart(f.Host)
		} else {
			m.hosts[f.Host].Restart()
		}
	case fault.Drift:
		_ = m.hosts[f.Host].SetClockRate(f.Rate) // the rate was validated
	}
	if before != nil && slices.EqualFunc(before, m.Matrix(), slices.Equal) {
		return // the links are as they were
	}
	e := fault.Event{At: m.w.Now(), Fault: f, Text: f.Format(m.names)}
	switch f.Kind {
	case fault.Isolate, fault.Cut, fault.Kill, fault.Restart, fault.Drift, fault.Bridge:
		e.Host = m.hosts[f.Host].Name()
	}
	m.log = append(m.log, e)
	m.w.Fold(sim.TagFault, uint64(f.Kind), uint64(f.Host), uint64(f.To), math.Float64bits(f.Rate))
	for _, g := range f.Groups {
		m.w.Fold(uint64(len(g)))
		for _, h := range g {
			m.w.Fold(uint64(h))
		}
	}
	m.w.Tracef("chaos: %s", e.Text)
}

// partition heals every link, then cuts each pair of hosts that are not in
// one group, except the bridge (if not -1) and each host of a group.
func (m *Monkey) partition(groups [][]int, bridge int) {
	m.net.HealLinks()
	side := make([]int, len(m.hosts))
	for i := range side {
		side[i] = -1 - i // a host in no group is alone
	}
	for g, hs := range groups {
		for _, h := range hs {
			side[h] = g
		}
	}
	for i := range m.hosts {
		for j := i + 1; j < len(m.hosts); j++ {
			bridged := (i == bridge && side[j] >= 0) || (j == bridge && side[i] >= 0)
			if side[i] != side[j] && !bridged {
				m.setLinks(i, j, false)
			}
		}
	}
}

func (m *Monkey) setLinks(a, b int, up bool) {
	m.net.SetLink(m.hosts[a], m.hosts[b], up)
	m.net.SetLink(m.hosts[b], m.hosts[a], up)
}

// Connected reports whether messages from host a reach host b.
func (m *Monkey) Connected(a, b int) bool {
	return m.net.LinkUp(m.hosts[a], m.hosts[b])
}

// Matrix returns the connectivity matrix: Matrix()[a][b] is Connected(a, b).
func (m *Monkey) Matrix() [][]bool {
	mx := make([][]bool, len(m.hosts))
	for a := range mx {
		mx[a] = make([]bool, len(m.hosts))
		for b := range mx[a] {
			mx[a][b] = a == b || m.Connected(a, b)
		}
	}
	return mx
}

// Alive reports which hosts are alive.
func (m *Monkey) Alive() []bool {
	alive := make([]bool, len(m.hosts))
	for i, h := range m.hosts {
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

// Schedule checks a script and schedules its faults relative to now.
func (m *Monkey) Schedule(script []Step) error {
	for i, s := range script {
		if s.At < 0 {
			return fmt.Errorf("chaos: script step %d (%v) has negative time %v", i, s.Fault, s.At)
		}
		if err := validate(s.Fault, len(m.hosts)); err != nil {
			return fmt.Errorf("chaos: script step %d: %w", i, err)
		}
	}
	for _, s := range script {
		f := s.Fault
		m.w.After(s.At, func() { m.apply(f) })
	}
	return nil
}
