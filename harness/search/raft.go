package search

import (
	"errors"
	"fmt"
	"slices"

	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/raft/rafttest"
	"github.com/replab/replab/sim/plant"
)

// The Raft scenarios: three servers of the lab's profile (raft.LabConfig:
// PreVote and CheckQuorum on) on a reliable network, whose only
// nondeterminism is the search's, and a client. The client either offers
// its write under way to every new leader until some server applies it
// (each offer a fresh command, so that two leaders' entries for one write
// differ, as two clients' writes would), or, in the scenarios whose writes
// are choices, writes whenever the search chooses to, to any server that
// believes it leads.

// firstWrite is the client's first command; the next are 43, 44, ...
const firstWrite = 42

// A raftSpec describes a Raft scenario.
type raftSpec struct {
	name, doc string
	writes    int  // how many writes the client makes
	choose    bool // the writes are the search's choices, not offered to each new leader
	crash     bool // the faults are crashes and restarts, not isolations, bridges and reconnections
	faults    int  // the default fault budget
}

// RaftScenarios returns the Raft search scenarios.
func RaftScenarios() []Scenario {
	return []Scenario{
		raftScenario(raftSpec{name: "raft-write", doc: "3 Raft servers elect a leader and commit one client write; messages delayed and reordered, no faults by default", writes: 1}),
		raftScenario(raftSpec{name: "raft-write-crash", doc: "raft-write with servers crashed and restarted (fault budget 1: a crash; restarts are free)", writes: 1, crash: true, faults: 1}),
		raftScenario(raftSpec{name: "raft-write-isolate", doc: "raft-write with servers cut off, or two servers cut apart bridged by the third, and reconnected (fault budget 1: an isolation or a bridge; reconnections are free)", writes: 1, faults: 1}),
		raftScenario(raftSpec{name: "raft-writes-crash", doc: "raft-write-crash with two writes, one after the other (fault budget 2: crashes; restarts are free)", writes: 2, crash: true, faults: 2}),
		raftScenario(raftSpec{name: "raft-choices-crash", doc: "up to 3 client writes, each a choice of the search, to any server that believes it leads, at any moment; fault budget 3: crashes, restarts free", writes: 3, choose: true, crash: true, faults: 3}),
		raftScenario(raftSpec{name: "raft-choices-isolate", doc: "raft-choices-crash with servers cut off, or two servers cut apart bridged by the third, instead of crashes (fault budget 3: isolations and bridges; reconnections are free)", writes: 3, choose: true, faults: 3}),
	}
}

// raftScenario is the Raft scenario of spec.
func raftScenario(spec raftSpec) Scenario {
	var bugs []string
	for _, b := range raft.PlantedBugs() {
		bugs = append(bugs, b.Name)
	}
	return Scenario{Name: spec.name, Doc: spec.doc, Bugs: bugs, Faults: spec.faults,
		Build: func(seed int64, bug string) (*System, error) { return buildRaft(seed, bug, spec) }}
}

// errT is a simtest.T that keeps the first failure instead of stopping:
// the harness's checks report through it, and the search reads it after
// every step.
type errT struct{ err error }

func (t *errT) Helper()                           {}
func (t *errT) Logf(format string, args ...any)   {}
func (t *errT) Errorf(format string, args ...any) { t.fail(fmt.Errorf(format, args...)) }
func (t *errT) Fatalf(format string, args ...any) { t.fail(fmt.Errorf(format, args...)) }
func (t *errT) FailNow()                          { t.fail(errors.New("failed")) }
func (t *errT) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// raftSys is the Raft scenarios' system: the lab's harness, the client,
// and what the predicates remember of the run so far.
type raftSys struct {
	t    *errT
	h    *rafttest.Harness
	spec raftSpec

	next    int          // the write under way (writes: all done); with choices, the writes made
	cmd     int          // the next command to offer
	offered []int        // the terms in which the client offered the write under way to the leader
	pending []int        // the commands offered for the write under way
	applied map[any]bool // the commands some server has applied
	leaders map[int]int  // term → the server that led it, as seen so far
	bridge  int          // the server that bridges the two others, cut apart; -1: no bridge
	// committed are the entries applied so far, each with the term of the
	// server that applied it, then: every leader of a later term must
	// hold it (leader completeness).
	committed []appliedEntry
	logs      []raft.Persisted // each server's persisted state, decoded after the step
}

type appliedEntry struct {
	index, term int
	cmd         any
}

// buildRaft builds the Raft system for seed with bug planted.
func buildRaft(seed int64, bug string, spec raftSpec) (*System, error) {
	cfg := raft.LabConfig()
	if bug != "" {
		i := slices.IndexFunc(raft.PlantedBugs(), func(b plant.Bug[raft.Config]) bool { return b.Name == bug })
		if i < 0 {
			return nil, fmt.Errorf("search: raft has no planted bug %q", bug)
		}
		raft.PlantedBugs()[i].Plant(&cfg)
	}
	s := &raftSys{t: &errT{}, spec: spec, leaders: map[int]int{}, cmd: firstWrite, applied: map[any]bool{}, bridge: -1}
	s.h = rafttest.New(s.t, seed, 3, false, false, raft.Maker(cfg))
	if s.t.err != nil {
		return nil, s.t.err
	}
	s.h.Logs().OnApply(func(node, index int, cmd any) {
		term := 0
		if rf := s.h.Node(node); rf != nil {
			term, _ = rf.GetState()
		}
		s.committed = append(s.committed, appliedEntry{index: index, term: term, cmd: cmd})
		s.applied[cmd] = true
	})
	sys := &System{
		World:     s.h.World(),
		Faults:    s.faults,
		AfterStep: s.client,
		Check:     s.check,
		Goal:      func() bool { return s.next == spec.writes },
		State:     s.state,
		Cover:     s.cover,
		RunFaults: func() []runfile.Fault {
			return testbed.RunFaults(s.h.Cluster().Monkey(), s.h.Cluster().Log())
		},
	}
	if spec.choose {
		sys.AfterStep = nil
		sys.Goal = func() bool { return len(s.applied) > 0 }
	}
	return sys, nil
}

// client offers the write under way to a leader of a term it has not
// offered it in, a fresh command each time, until some server has applied
// one of them; then the next write.
func (s *raftSys) client() {
	if s.next < s.spec.writes && slices.ContainsFunc(s.pending, func(c int) bool { return s.applied[c] }) {
		s.next, s.offered, s.pending = s.next+1, nil, nil
	}
	if s.next == s.spec.writes {
		return
	}
	for i := range s.h.N() {
		if term, leads := s.leads(i); leads && !slices.Contains(s.offered, term) {
			s.offered = append(s.offered, term)
			s.pending = append(s.pending, s.write(i))
		}
	}
}

// leads reports whether server i is up, connected and believes it leads,
// and its term.
func (s *raftSys) leads(i int) (int, bool) {
	rf := s.h.Node(i)
	if rf == nil || !s.h.Connected(i) {
		return 0, false
	}
	return rf.GetState()
}

// write offers a fresh command to server i and returns it.
func (s *raftSys) write(i int) int {
	c := s.cmd
	s.cmd++
	s.h.Node(i).Start(c)
	return c
}

// faults offers crashing or cutting off each server, and restarting or
// reconnecting it; where servers are cut off rather than crashed, also
// bridging: cutting the two other servers apart, each still talking to
// the bridge (fault.Bridge; with three servers, one link cut both ways,
// the partial partition in which a server hears a leader that another
// does not), and lifting the bridge.
func (s *raftSys) faults() []Fault {
	var fs []Fault
	for i := range s.h.N() {
		if _, leads := s.leads(i); s.spec.choose && leads && s.next < s.spec.writes {
			fs = append(fs, Fault{Name: fmt.Sprintf("client writes to server %d", i), Host: s.h.Host(i).ID(), Apply: func() { s.next++; s.write(i) }})
		}
	}
	for i := range s.h.N() {
		f := Fault{Host: s.h.Host(i).ID()}
		switch {
		case s.spec.crash && s.h.Node(i) != nil:
			f.Name, f.Budgeted, f.Apply = fmt.Sprintf("crash server %d", i), true, func() { s.h.Crash1(i) }
		case s.spec.crash:
			f.Name, f.Apply = fmt.Sprintf("restart server %d", i), func() { s.h.Start1(i); s.h.Connect(i) }
		case s.h.Connected(i):
			f.Name, f.Budgeted, f.Apply = fmt.Sprintf("cut server %d off", i), true, func() { s.h.Disconnect(i) }
		default:
			f.Name, f.Apply = fmt.Sprintf("reconnect server %d", i), func() { s.h.Connect(i) }
		}
		if !s.spec.crash && f.Budgeted {
			apply := f.Apply
			f.Apply = func() { apply(); s.bridge = -1 } // an isolation replaces the bridge
		}
		fs = append(fs, f)
	}
	if s.spec.crash {
		return fs
	}
	for b := range s.h.N() {
		if b != s.bridge {
			fs = append(fs, Fault{Name: fmt.Sprintf("bridge: servers cut apart but for server %d", b), Budgeted: true, Host: s.h.Host(b).ID(),
				Apply: func() { s.h.Bridge(b); s.bridge = b }})
		}
	}
	if s.bridge >= 0 {
		fs = append(fs, Fault{Name: "lift the bridge", Host: s.h.Host(s.bridge).ID(), Apply: func() { s.h.Only(s.h.All()...); s.bridge = -1 }})
	}
	return fs
}

// check checks Raft's safety properties (Figure 3 of the paper) in the
// state after a step:
//   - election safety: at most one leader in a term, over the run so far;
//   - log matching: two logs with an entry of the same index and term
//     hold the same entries up to it;
//   - leader completeness: a leader holds every entry applied before it
//     in an earlier term;
//   - state-machine safety: no two servers apply different commands at an
//     index (rafttest.Logs checks it as they apply);
//   - lease safety: no two servers hold a read lease at once;
//   - and what these rest on, that an applied entry is on a majority of
//     the servers' persisted logs, and that each persisted log reads back
//     whole, its terms never decreasing.
func (s *raftSys) check() error {
	if s.t.err != nil {
		return fmt.Errorf("state-machine safety: %w", s.t.err)
	}
	s.logs = s.logs[:0]
	for i := range s.h.N() {
		p, err := raft.DecodePersisted(s.h.Cluster().Persister(0, i).ReadRaftState(), nil)
		if err != nil {
			return fmt.Errorf("persisted state: server %d: %w", i, err)
		}
		s.logs = append(s.logs, p)
	}
	for i := range s.h.N() {
		rf := s.h.Node(i)
		if rf == nil {
			continue
		}
		term, leads := rf.GetState()
		if !leads {
			continue
		}
		if l, ok := s.leaders[term]; ok && l != i {
			return fmt.Errorf("election safety: servers %d and %d both led term %d", l, i, term)
		}
		s.leaders[term] = i
		for _, e := range s.committed {
			if term > e.term && !holds(s.logs[i], e.index, e.cmd) {
				return fmt.Errorf("leader completeness: server %d leads term %d without entry %d (%v), applied in term %d", i, term, e.index, e.cmd, e.term)
			}
		}
	}
	if err := s.leases(); err != nil {
		return err
	}
	for i := range s.logs {
		for j := i + 1; j < len(s.logs); j++ {
			if err := logMatching(s.logs[i], s.logs[j]); err != nil {
				return fmt.Errorf("log matching: servers %d and %d: %w", i, j, err)
			}
		}
	}
	for _, e := range s.committed {
		on := 0
		for _, l := range s.logs {
			if holds(l, e.index, e.cmd) {
				on++
			}
		}
		if 2*on <= len(s.logs) {
			return fmt.Errorf("applied entries are committed: entry %d (%v) was applied but is on %d of %d servers' logs", e.index, e.cmd, on, len(s.logs))
		}
	}
	return nil
}

// leases checks lease safety: no two servers believe at once that they
// hold a read lease (raft.Raft.LeaseRead: a majority acknowledged a
// message sent less than a lease ago), the time being the world's one
// clock (the scenarios have no clock drift).
func (s *raftSys) leases() error {
	holder := -1
	for i := range s.h.N() {
		rf, reads := s.h.Node(i).(raftapi.Reader)
		if !reads {
			continue
		}
		if _, ok := rf.LeaseRead(); !ok {
			continue
		}
		if holder >= 0 {
			return fmt.Errorf("lease safety: servers %d and %d both hold a read lease at %v", holder, i, s.h.World().Now())
		}
		holder = i
	}
	return nil
}

// holds reports whether log l has cmd at index.
func holds(l raft.Persisted, index int, cmd any) bool {
	k := index - l.Base - 1
	return k >= 0 && k < len(l.Entries) && l.Entries[k].Command == cmd
}

// logMatching returns an error unless the logs agree up to the last index
// at which both have an entry of the same term.
func logMatching(a, b raft.Persisted) error {
	if a.Base != 0 || b.Base != 0 {
		return nil // the scenarios take no snapshots
	}
	n := min(len(a.Entries), len(b.Entries))
	last := -1
	for k := n - 1; k >= 0; k-- {
		if a.Entries[k].Term == b.Entries[k].Term {
			last = k
			break
		}
	}
	for k := 0; k <= last; k++ {
		if a.Entries[k] != b.Entries[k] {
			return fmt.Errorf("entry %d of term %d matches, but entry %d differs: %v and %v", last+1, a.Entries[last].Term, k+1, a.Entries[k], b.Entries[k])
		}
	}
	return nil
}

// state is the digest of the servers' state: for each, whether it is up
// and connected, its persisted state (term, vote, log), whether it leads,
// how far it applied, and what its inspectors show; and the terms the
// client offered the write under way in, and which write that is.
func (s *raftSys) state() uint64 {
	h := uint64(0)
	for i := range s.h.N() {
		rf := s.h.Node(i)
		up := uint64(0)
		if rf != nil {
			up = 1
		}
		if s.h.Connected(i) {
			up |= 2
		}
		if s.bridge == i {
			up |= 4
		}
		h = mix(mix(h, up), bytesWord(s.h.Cluster().Persister(0, i).ReadRaftState()))
		if rf != nil {
			term, leads := rf.GetState()
			l := uint64(0)
			if leads {
				l = 1
			}
			h = mix(mix(h, uint64(term)), l)
		}
		h = mix(h, uint64(s.h.Logs().LastApplied(i)))
		for _, f := range s.h.Host(i).State() {
			h = mix(mix(h, bytesWord([]byte(f.Name))), bytesWord([]byte(f.Value)))
		}
	}
	h = mix(mix(h, uint64(s.next)), uint64(s.cmd))
	for _, t := range s.offered {
		h = mix(h, uint64(t))
	}
	return h
}

// cover is the digest a guided search counts coverage by, the shape of
// what the servers hold rather than its numbers: for each server, whether
// it is up, leads, and holds a read lease, whether it is cut off or
// bridges (never, where the faults are crashes), how far it applied, and its log (each
// entry's command and term), with the terms replaced by their ranks among
// the terms the servers hold (so that a fourth election with the same
// outcome as a third covers nothing new), and the servers taken as a
// multiset (which server is which does not count); and the writes made.
func (s *raftSys) cover() uint64 {
	var terms []int
	logs := make([]raft.Persisted, s.h.N())
	for i := range logs {
		logs[i], _ = raft.DecodePersisted(s.h.Cluster().Persister(0, i).ReadRaftState(), nil)
		for _, e := range logs[i].Entries {
			terms = append(terms, e.Term)
		}
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	rank := func(t int) uint64 { k, _ := slices.BinarySearch(terms, t); return uint64(k) }
	var sum uint64
	for i, l := range logs {
		up := uint64(0)
		if rf := s.h.Node(i); rf != nil {
			up = 1
			if _, leads := rf.GetState(); leads {
				up = 2
			}
			if r, reads := rf.(raftapi.Reader); reads {
				if _, lease := r.LeaseRead(); lease {
					up = 3
				}
			}
		}
		if up > 0 && !s.h.Connected(i) {
			up += 4 // cut off
		}
		if s.bridge == i {
			up += 8
		}
		h := mix(mix(0, up), uint64(s.h.Logs().LastApplied(i)))
		for _, e := range l.Entries {
			h = mix(mix(h, rank(e.Term)), bytesWord([]byte(fmt.Sprint(e.Command))))
		}
		sum += splitmix(mix(h, uint64(len(l.Entries))))
	}
	return sum
}

// bytesWord is an FNV-1a digest of b.
func bytesWord(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return h
}
