package chaos

import (
	"slices"

	"github.com/replab/replab/chaos/fault"
)

// links are the link faults in force. A link is down while any of them
// cuts it, so lifting one (Rejoin, Uncut) leaves the others in place.
type links struct {
	split    [][]bool // split[a][b]: the partition or bridge in force cuts server a → server b
	isolated []bool   // by host, servers then clients
	cut      [][]bool // one-way cuts, by host
}

func newLinks(n int) links {
	return links{split: square(n), isolated: make([]bool, n), cut: square(n)}
}

// grow adds a client host to the links: no link fault cuts it.
func (l *links) grow() {
	l.isolated = append(l.isolated, false)
	for i := range l.cut {
		l.cut[i] = append(l.cut[i], false)
	}
	l.cut = append(l.cut, make([]bool, len(l.isolated)))
}

func square(n int) [][]bool {
	mx := make([][]bool, n)
	for i := range mx {
		mx[i] = make([]bool, n)
	}
	return mx
}

// down reports whether some link fault in force cuts a → b.
func (l *links) down(a, b int) bool {
	split := a < len(l.split) && b < len(l.split) && l.split[a][b]
	return split || l.isolated[a] || l.isolated[b] || l.cut[a][b]
}

// inForce reports whether any link fault is in force.
func (l *links) inForce() bool {
	return slices.Contains(l.isolated, true) || slices.ContainsFunc(l.split, hasTrue) || slices.ContainsFunc(l.cut, hasTrue)
}

func hasTrue(row []bool) bool { return slices.Contains(row, true) }

// clear lifts every link fault.
func (l *links) clear() {
	for i := range l.split {
		clear(l.split[i])
	}
	for i := range l.cut {
		clear(l.cut[i])
	}
	clear(l.isolated)
}

// partition puts split in force in place of every link fault, and
// reports whether that changed the faults in force.
func (l *links) partition(split [][]bool) bool {
	changed := slices.Contains(l.isolated, true) || slices.ContainsFunc(l.cut, hasTrue) ||
		!slices.EqualFunc(split, l.split, slices.Equal)
	l.clear()
	l.split = split
	return changed
}

// applyLinks applies a validated link fault to the monkey's links and the
// network, and reports whether it changed the faults in force.
func (m *Monkey) applyLinks(f fault.Fault) bool {
	l := &m.links
	switch f.Kind {
	case fault.Heal:
		changed := l.inForce()
		l.clear()
		m.net.HealLinks()
		return changed
	case fault.Partition, fault.Bridge:
		bridge := -1
		if f.Kind == fault.Bridge {
			bridge = f.Host
		}
		split := splitOf(m.servers, f.Groups, bridge)
		changed := l.partition(split)
		m.net.HealLinks()
		for i := range m.servers {
			for j := i + 1; j < m.servers; j++ {
				if split[i][j] {
					m.setLinks(i, j, false)
				}
			}
		}
		return changed
	case fault.Isolate:
		changed := !l.isolated[f.Host]
		l.isolated[f.Host] = true
		for _, j := range m.peers(f.Host) {
			m.setLinks(f.Host, j, false)
		}
		return changed
	case fault.Rejoin:
		if !l.isolated[f.Host] {
			return false
		}
		l.isolated[f.Host] = false
		for _, j := range m.peers(f.Host) {
			m.sync(f.Host, j)
			m.sync(j, f.Host)
		}
		return true
	case fault.Cut:
		changed := !l.cut[f.Host][f.To]
		l.cut[f.Host][f.To] = true
		m.net.SetLink(m.hosts[f.Host], m.hosts[f.To], false)
		return changed
	default: // Uncut
		if !l.cut[f.Host][f.To] {
			return false
		}
		l.cut[f.Host][f.To] = false
		m.sync(f.Host, f.To)
		return true
	}
}

// splitOf returns which links a partition of n hosts into groups cuts: each
// between hosts not in one group, except those of the bridge (if not -1)
// with the hosts of every group. A host in no group is alone.
func splitOf(n int, groups [][]int, bridge int) [][]bool {
	side := make([]int, n)
	for i := range side {
		side[i] = -1 - i
	}
	for g, hs := range groups {
		for _, h := range hs {
			side[h] = g
		}
	}
	split := square(n)
	for i := range n {
		for j := range n {
			bridged := (i == bridge && side[j] >= 0) || (j == bridge && side[i] >= 0)
			split[i][j] = side[i] != side[j] && !bridged
		}
	}
	return split
}

// peers returns the hosts that isolating h cuts it off from: every other
// server (a server's clients keep reaching it, as they do in a partition).
func (m *Monkey) peers(h int) []int {
	var peers []int
	for j := range m.servers {
		if j != h {
			peers = append(peers, j)
		}
	}
	return peers
}

func (m *Monkey) setLinks(a, b int, up bool) {
	m.net.SetLink(m.hosts[a], m.hosts[b], up)
	m.net.SetLink(m.hosts[b], m.hosts[a], up)
}

// sync sets the network's link a → b as the link faults in force say.
func (m *Monkey) sync(a, b int) {
	m.net.SetLink(m.hosts[a], m.hosts[b], !m.links.down(a, b))
}
