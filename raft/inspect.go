package raft

import (
	"strconv"

	"github.com/replab/replab/sim"
)

// InspectAs returns the name under which a node with this config, or the
// service of what (an "rsm" on it, say), shows its state on its host (see
// sim.Host.Inspect): what itself, or "group/what" if Group is set, so that
// the nodes of several groups sharing a host stay apart.
func (c Config) InspectAs(what string) string {
	if c.Group == "" {
		return what
	}
	return c.Group + "/" + what
}

var roleNames = [...]string{follower: "follower", candidate: "candidate", leader: "leader"}

// Inspect shows the node's state (sim.Inspector): its role, term, vote,
// commit index, last applied index, log (its last index and that entry's
// term), the leader it follows (itself when it leads; "-" when it knows
// none) and the last index its snapshot covers. Peers are named by their
// hosts. A killed node shows its role as "killed".
func (rf *Raft) Inspect() []sim.Field {
	role := roleNames[rf.role]
	if rf.dead {
		role = "killed"
	}
	return []sim.Field{
		{Name: "role", Value: role},
		{Name: "term", Value: strconv.Itoa(rf.term)},
		{Name: "votedFor", Value: rf.peerName(rf.votedFor)},
		{Name: "commit", Value: strconv.Itoa(rf.commitIndex)},
		{Name: "applied", Value: strconv.Itoa(rf.lastApplied)},
		{Name: "log", Value: strconv.Itoa(rf.log.last())},
		{Name: "lastTerm", Value: strconv.Itoa(rf.log.lastTerm())},
		{Name: "leader", Value: rf.peerName(rf.leader)},
		{Name: "snapshot", Value: strconv.Itoa(rf.log.base)},
	}
}

// peerName names peer p by its host ("-" for none, its index if its host
// is unknown).
func (rf *Raft) peerName(p int) string {
	switch {
	case p < 0 || p >= len(rf.peers):
		return "-"
	case p == rf.me:
		return rf.host.Name()
	}
	if end := rf.peers[p]; end != nil {
		if h := end.ServerHost(); h != nil {
			return h.Name()
		}
	}
	return strconv.Itoa(p)
}
