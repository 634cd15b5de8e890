package rafttest

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft/raftapi"
)

// Logs is what each node of one Raft group applied, by index, checked as
// it is applied, as the lab checks Raft: each node applies its commands in
// order, and no two nodes apply different commands at one index. Its
// Factory makes the group's nodes for a cluster, each with an applier that
// feeds Logs. Make one with NewLogs.
type Logs struct {
	mk raftapi.Make
	// every is how many entries a node's applier applies between the
	// snapshots it asks for; 0 asks for none.
	every int

	logs        []map[int]any // what each server has applied, by index
	lastApplied []int
	encoded     []encoded // each server's commands, encoded for its snapshots
	maxIndex    int
	err         error // the first violation

	// fail, if set, hears of each violation as it is found.
	fail func(error)
	// applied, if set, hears of each command applied, as it is checked.
	applied func(i, index int, cmd any)
}

// NewLogs returns the logs of a group of n nodes made by mk. With every
// positive, each node's applier asks its node for a snapshot every every
// entries.
func NewLogs(n int, mk raftapi.Make, every int) (*Logs, error) {
	if n <= 0 || every < 0 {
		return nil, fmt.Errorf("rafttest: logs of %d nodes with a snapshot every %d entries: want nodes, and no negative interval", n, every)
	}
	l := &Logs{mk: mk, every: every, logs: make([]map[int]any, n), lastApplied: make([]int, n), encoded: make([]encoded, n)}
	for i := range l.logs {
		l.logs[i] = map[int]any{}
	}
	return l, nil
}

// OnViolation makes fail hear of each violation as it is found (the
// first is kept for Err too).
func (l *Logs) OnViolation(fail func(error)) { l.fail = fail }

// OnApply makes applied hear of each command a node applies, once it is
// checked.
func (l *Logs) OnApply(applied func(node, index int, cmd any)) { l.applied = applied }

// Nodes returns how many nodes the group has.
func (l *Logs) Nodes() int { return len(l.logs) }

// Err returns the first violation found, or nil.
func (l *Logs) Err() error { return l.err }

// Applied returns what server i applied at index, if it did.
func (l *Logs) Applied(i, index int) (any, bool) {
	cmd, ok := l.logs[i][index]
	return cmd, ok
}

// LastApplied returns the last index server i applied.
func (l *Logs) LastApplied(i int) int { return l.lastApplied[i] }

// MaxIndex returns the highest index any server applied.
func (l *Logs) MaxIndex() int { return l.maxIndex }

// Committed returns how many servers have applied index, and the command;
// an error if two applied different ones.
func (l *Logs) Committed(index int) (int, any, error) {
	count := 0
	var cmd any
	for i := range l.logs {
		if cmd1, ok := l.logs[i][index]; ok {
			if count > 0 && cmd != cmd1 {
				return count, cmd, fmt.Errorf("committed values do not match: index %d, %v, %v", index, short(cmd), short(cmd1))
			}
			count++
			cmd = cmd1
		}
	}
	return count, cmd, nil
}

// violation records err, the first one for good, and tells fail.
func (l *Logs) violation(err error) {
	if l.err == nil {
		l.err = err
	}
	if l.fail != nil {
		l.fail(err)
	}
}

// Factory makes node n.Me for a cluster, feeding its applier the snapshot
// it restarts from.
func (l *Logs) Factory(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
	host, peers, me, ps := n.Host, n.Peers, n.Me, n.Persister
	l.lastApplied[me], l.encoded[me] = 0, encoded{}
	if snap := ps.ReadSnapshot(); l.every > 0 && len(snap) > 0 {
		if err := l.ingestSnap(me, snap, -1); err != nil {
			l.violation(err)
		}
	}
	var rf raftapi.Raft
	rf, err := l.mk(host, peers, me, ps, func(m raftapi.ApplyMsg) {
		if err := l.apply(me, rf, m); err != nil {
			l.violation(err)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if rf == nil {
		return nil, nil, errors.New("rafttest: Make returned neither a node nor an error")
	}
	return rf, []*labrpc.Service{raftapi.ServiceOf(rf)}, nil
}

// apply checks each committed command against what the other servers
// applied at that index, and that it comes in order. With snapshots on, it
// also ingests snapshots and asks for one every l.every entries.
func (l *Logs) apply(i int, rf raftapi.Raft, m raftapi.ApplyMsg) error {
	if m.SnapshotValid {
		if l.every == 0 {
			return fmt.Errorf("server %d got a snapshot although the test takes none", i)
		}
		return l.ingestSnap(i, m.Snapshot, m.SnapshotIndex)
	}
	if !m.CommandValid {
		return fmt.Errorf("server %d: apply message with neither a command nor a snapshot", i)
	}
	if m.CommandIndex != l.lastApplied[i]+1 {
		return fmt.Errorf("server %d apply out of order: expected index %d, got %d", i, l.lastApplied[i]+1, m.CommandIndex)
	}
	if err := l.checkLogs(i, m); err != nil {
		return fmt.Errorf("apply error: %w", err)
	}
	l.lastApplied[i] = m.CommandIndex
	if l.applied != nil {
		l.applied(i, m.CommandIndex, m.Command)
	}
	if l.every > 0 && m.CommandIndex%l.every == 0 {
		rf.Snapshot(m.CommandIndex, l.encodeSnap(i, m.CommandIndex))
	}
	return nil
}

// checkLogs records server i's command at m's index, failing if another
// server applied something else there.
func (l *Logs) checkLogs(i int, m raftapi.ApplyMsg) error {
	for j := range l.logs {
		if old, ok := l.logs[j][m.CommandIndex]; ok && old != m.Command {
			return fmt.Errorf("commit index=%d server=%d %v != server=%d %v", m.CommandIndex, i, short(m.Command), j, short(old))
		}
	}
	l.logs[i][m.CommandIndex] = m.Command
	l.maxIndex = max(l.maxIndex, m.CommandIndex)
	return nil
}

// short shows a command, cut to a line's length.
func short(cmd any) string {
	s := fmt.Sprint(cmd)
	if len(s) > 40 {
		return fmt.Sprintf("%s… (%d bytes)", s[:40], len(s))
	}
	return s
}

// The snapshot of an applied log is the last index, then each command up
// to it (index 0 holds none): an int as its tag and a varint, a string as
// its tag, a length and the bytes.
const (
	snapNil = iota
	snapInt
	snapString
)

// encoded is a server's commands from index 1 up to upTo, encoded as a
// snapshot holds them, so that a snapshot encodes only the commands
// applied since the last (a snapshot every few entries of a long log would
// otherwise cost the square of its length).
type encoded struct {
	upTo int
	cmds []byte
}

// encodeSnap is the snapshot of server i's applied commands up to index.
func (l *Logs) encodeSnap(i, index int) []byte {
	e := &l.encoded[i]
	if e.upTo > index {
		*e = encoded{}
	}
	for j := e.upTo + 1; j <= index; j++ {
		e.cmds = appendCmd(e.cmds, l.logs[i][j])
	}
	e.upTo = index
	b := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(e.cmds)), uint64(index))
	return append(b, e.cmds...)
}

// appendCmd appends cmd's form in a snapshot to b.
func appendCmd(b []byte, cmd any) []byte {
	switch cmd := cmd.(type) {
	case int:
		return binary.AppendVarint(append(b, snapInt), int64(cmd))
	case string:
		return append(binary.AppendUvarint(append(b, snapString), uint64(len(cmd))), cmd...)
	case nil:
		return append(b, snapNil)
	}
	panic(fmt.Sprintf("rafttest: a snapshot cannot hold command %v of type %T", cmd, cmd))
}

// ingestSnap loads a snapshot into server i's applied log; index is the
// snapshot's index as the node reported it, or -1 if it did not.
func (l *Logs) ingestSnap(i int, snap []byte, index int) error {
	last, n := binary.Uvarint(snap)
	if n <= 0 {
		return fmt.Errorf("server %d: snapshot decode error: no index", i)
	}
	b := snap[n:]
	if index != -1 && index != int(last) {
		return fmt.Errorf("server %d snapshot doesn't match SnapshotIndex: %d != %d", i, last, index)
	}
	logs := map[int]any{}
	for j := 1; j <= int(last); j++ {
		if len(b) == 0 {
			return fmt.Errorf("server %d: snapshot decode error: it ends before index %d", i, j)
		}
		tag := b[0]
		b = b[1:]
		switch tag {
		case snapNil:
			logs[j] = nil
		case snapInt:
			v, n := binary.Varint(b)
			if n <= 0 {
				return fmt.Errorf("server %d: snapshot decode error: bad int at index %d", i, j)
			}
			logs[j], b = int(v), b[n:]
		case snapString:
			size, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < size {
				return fmt.Errorf("server %d: snapshot decode error: bad string at index %d", i, j)
			}
			logs[j], b = string(b[n:n+int(size)]), b[n+int(size):]
		default:
			return fmt.Errorf("server %d: snapshot decode error: unknown tag %d at index %d", i, tag, j)
		}
	}
	l.logs[i], l.encoded[i] = logs, encoded{}
	l.lastApplied[i] = int(last)
	return nil
}
