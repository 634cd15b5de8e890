package logorder

import (
	"encoding/binary"

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
// server processes the queue on its own, in order. A snapshot holds all
// three, so a restarted node processes again from where its snapshot
// stood.
type machine struct {
	index      func() int // the log index of the entry being applied
	st         *store
	processed  int // every tid up to here is decided and applied to st
	queue      []queued
	queuedTo   int    // the largest tid queued
	queuedFn   func() // tells the server a transaction was queued
	restoredFn func() // tells the server a snapshot replaced the state
}

// Apply queues a transaction under its log index, and returns the index.
func (m *machine) Apply(cmd any) any {
	tid := m.index()
	m.queue = append(m.queue, queued{tid: tid, txn: cmd.(command).Txn})
	m.queuedTo = tid
	m.queuedFn()
	return tid
}

// Snapshot encodes the processed tid, the queue and the store.
func (m *machine) Snapshot() []byte {
	b := binary.AppendUvarint(nil, uint64(m.processed))
	b = binary.AppendUvarint(b, uint64(m.queuedTo))
	b = binary.AppendUvarint(b, uint64(len(m.queue)))
	for _, q := range m.queue {
		b = binary.AppendUvarint(b, uint64(q.tid))
		b = appendTxn(b, q.txn)
	}
	return m.st.appendTo(b)
}

// Restore replaces the state with a snapshot's.
func (m *machine) Restore(snap []byte) error {
	if len(snap) == 0 {
		m.st, m.processed, m.queue, m.queuedTo = newStore(), 0, nil, 0
		m.restoredFn()
		return nil
	}
	d := wire.NewDecoder(snap)
	processed, queuedTo := int(d.Uvarint()), int(d.Uvarint())
	var queue []queued
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		tid := int(d.Uvarint())
		queue = append(queue, queued{tid: tid, txn: decodeTxn(d)})
	}
	st := decodeStore(d)
	if err := d.Done(); err != nil {
		return err
	}
	m.st, m.processed, m.queue, m.queuedTo = st, processed, queue, queuedTo
	m.restoredFn()
	return nil
}

func appendTxn(b []byte, t Txn) []byte {
	b = binary.AppendUvarint(b, uint64(t.Snapshot))
	b = binary.AppendUvarint(b, uint64(len(t.Reads)))
	for _, r := range t.Reads {
		b = wire.AppendString(wire.AppendString(b, r.Key), r.Value)
		b = binary.AppendUvarint(b, boolByte(r.Found))
	}
	b = binary.AppendUvarint(b, uint64(len(t.Writes)))
	for _, w := range t.Writes {
		b = wire.AppendString(wire.AppendString(b, w.Key), w.Value)
	}
	return b
}

func decodeTxn(d *wire.Decoder) Txn {
	t := Txn{Snapshot: int(d.Uvarint())}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		t.Reads = append(t.Reads, Read{Key: d.String(), Value: d.String(), Found: d.Uvarint() == 1})
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		t.Writes = append(t.Writes, Write{Key: d.String(), Value: d.String()})
	}
	return t
}

func boolByte(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
