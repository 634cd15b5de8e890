package logorder

import (
	"encoding/binary"
	"fmt"

	"github.com/replab/replab/rsm/wire"
)

// codec puts the log's commands (transactions) and results (tids) into
// bytes with package wire: every node logs every transaction, so its
// encoding is on the hot path, where gob's type descriptors cost more
// than the transaction.
type codec struct{}

// AppendCommand appends a command's transaction.
func (codec) AppendCommand(b []byte, cmd any) ([]byte, error) {
	c, ok := cmd.(command)
	if !ok {
		return nil, fmt.Errorf("logorder: command %T is not a transaction", cmd)
	}
	return appendTxn(b, c.Txn), nil
}

// DecodeCommand reads a command written by AppendCommand.
func (codec) DecodeCommand(b []byte) (any, error) {
	d := wire.NewDecoder(b)
	t := decodeTxn(d)
	if err := d.Done(); err != nil {
		return nil, err
	}
	return command{Txn: t}, nil
}

// AppendResult appends a result, a tid.
func (codec) AppendResult(b []byte, result any) ([]byte, error) {
	tid, ok := result.(int)
	if !ok {
		return nil, fmt.Errorf("logorder: result %T is not a tid", result)
	}
	return binary.AppendUvarint(b, uint64(tid)), nil
}

// DecodeResult reads a result written by AppendResult.
func (codec) DecodeResult(b []byte) (any, error) {
	d := wire.NewDecoder(b)
	tid := int(d.Uvarint())
	return tid, d.Done()
}

// appendTxn appends a transaction: its snapshot, its reads and its writes.
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

// decodeTxn reads a transaction written by appendTxn.
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
