package kvraft

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Op is the command a KVServer puts in the Raft log.
type Op struct {
	Kind     OpKind
	Key      string
	Value    string
	Version  int64
	ClientID int64
	Seq      int64
}

// same reports whether two ops are one client request.
func (op Op) same(other Op) bool {
	return op.ClientID == other.ClientID && op.Seq == other.Seq && op.Kind == other.Kind
}

// opCodec persists Ops in Raft's log (a raft.CommandCodec).
type opCodec struct{}

// AppendCommand appends the encoding of an Op to b.
func (opCodec) AppendCommand(b []byte, cmd any) ([]byte, error) {
	op, ok := cmd.(Op)
	if !ok {
		return nil, fmt.Errorf("kvraft: command %T is not an Op", cmd)
	}
	b = append(b, byte(op.Kind))
	b = appendString(b, op.Key)
	b = appendString(b, op.Value)
	b = binary.AppendVarint(b, op.Version)
	b = binary.AppendVarint(b, op.ClientID)
	return binary.AppendVarint(b, op.Seq), nil
}

// DecodeCommand reads an Op written by AppendCommand.
func (opCodec) DecodeCommand(b []byte) (any, error) {
	d := decoder{b: b}
	op := Op{Kind: OpKind(d.byte()), Key: d.string(), Value: d.string(), Version: d.varint(), ClientID: d.varint(), Seq: d.varint()}
	return op, d.err
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errTruncated = errors.New("kvraft: truncated encoding")

// decoder reads what the append functions wrote; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.err = errTruncated
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errTruncated
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errTruncated
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if uint64(len(d.b)) < n {
		d.err = errTruncated
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
