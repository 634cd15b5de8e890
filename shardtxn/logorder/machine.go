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
// another's, as a Raft snapshot sent by a leader would: the log is never
// trimmed, and each node snapshots its own state (the processed tid and
// the store) to a disk of its own. A restarted node restores that
// snapshot and the log replays the rest; entries at or below the
// snapshot's tid are already in its store and are not queued again.
type machine struct {
	index     func() int // the log index of the entry being applied
	st        *store
	processed int // every tid up to here is decided and applied to st
	queue     []queued
	queuedFn  func() // tells the server a transaction was queued
}

// Apply queues a transaction under its log index, and returns the index.
func (m *machine) Apply(cmd any) any {
	tid := m.index()
	if tid > m.processed {
		m.queue = append(m.queue, queued{tid: tid, txn: cmd.(command).Txn})
		m.queuedFn()
	}
	return tid
}

// Snapshot encodes the node's state: the processed tid and the store.
func (m *machine) Snapshot() []byte {
	return m.st.appendTo(binary.AppendUvarint(nil, uint64(m.processed)))
}

// Restore replaces the state with a node snapshot's; the queue must be
// empty (the node is starting).
func (m *machine) Restore(snap []byte) error {
	if len(m.queue) > 0 {
		return fmt.Errorf("logorder: a node snapshot restored over %d queued transactions", len(m.queue))
	}
	d := wire.NewDecoder(snap)
	processed := int(d.Uvarint())
	st := decodeStore(d)
	if err := d.Done(); err != nil {
		return err
	}
	m.st, m.processed = st, processed
	return nil
}
