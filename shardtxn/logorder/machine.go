package logorder

import (
	"encoding/binary"
	"fmt"

	"github.com/replab/replab/rsm/wire"
)

// A command is what the log holds: a client's transaction, or (a Txn
// with nothing in it) a barrier.
type command struct{ Txn Txn }

// A queued transaction is one the log has applied at tid and the node has
// not processed yet.
type queued struct {
	tid int
	txn Txn
}

// A machine is the state a node's log drives: the transactions it holds
// in log order, how far it has processed them, and its multi-version
// store. Applying an entry only queues it, under its log index as tid:
// deciding it may need other nodes' values, which arrive later, so the
// server processes the queue on its own, in order.
//
// Nodes keep different keys, so one node's state cannot stand in for
// another's, as a Raft snapshot sent by a leader would. Each node saves
// its own snapshot (its log service's, with this machine's state: the
// processed tid, the store and the transactions queued after it) to a
// disk of its own, and gives Raft the same bytes only to trim the log
// below the watermark, which no node's log needs (see checkpoint). A
// restarted node restores its snapshot and the log replays the rest.
type machine struct {
	me        int
	index     func() int // the log index of the entry being applied
	st        *store
	processed int // every tid up to here is decided and applied to st
	queue     []queued
	queuedFn  func() // tells the server a transaction was queued
	// snapLen is the last snapshot's length: the next is built in a
	// buffer that size, which it seldom outgrows, rather than grown to it.
	snapLen int
}

// Apply queues a transaction under its log index, and returns the index.
// A tid the node has processed or queued already (a snapshot holds it) is
// not queued again.
func (m *machine) Apply(cmd any) any {
	tid := m.index()
	if tid > m.processed && (len(m.queue) == 0 || tid > m.queue[len(m.queue)-1].tid) {
		m.queue = append(m.queue, queued{tid: tid, txn: cmd.(command).Txn})
		m.queuedFn()
	}
	return tid
}

// Snapshot encodes the node's state: the node, the processed tid, the
// store and the queue.
func (m *machine) Snapshot() []byte {
	b := binary.AppendUvarint(make([]byte, 0, m.snapLen), uint64(m.me))
	b = m.st.appendTo(binary.AppendUvarint(b, uint64(m.processed)))
	b = binary.AppendUvarint(b, uint64(len(m.queue)))
	for _, q := range m.queue {
		b = appendTxn(binary.AppendUvarint(b, uint64(q.tid)), q.txn)
	}
	m.snapLen = len(b)
	return b
}

// Restore replaces the state with the node's own snapshot's (the node is
// starting). Another node's snapshot is refused: it cannot stand for this
// node's keys (and a leader never sends one, as the log is trimmed only
// below every node's own snapshot).
func (m *machine) Restore(snap []byte) error {
	d := wire.NewDecoder(snap)
	if node := int(d.Uvarint()); d.Err() == nil && node != m.me {
		return fmt.Errorf("logorder: node %d's snapshot given to node %d", node, m.me)
	}
	processed := int(d.Uvarint())
	st := decodeStore(d)
	var queue []queued
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		tid := int(d.Uvarint())
		queue = append(queue, queued{tid: tid, txn: decodeTxn(d)})
	}
	if err := d.Done(); err != nil {
		return err
	}
	m.st, m.processed, m.queue = st, processed, queue
	return nil
}
