package kvraft

import (
	"encoding/binary"
	"fmt"

	"github.com/replab/replab/rsm/wire"
)

// Op is the command a KVServer puts in the Raft log.
type Op struct {
	Kind    OpKind
	Key     string
	Value   string
	Version int64
}

// A result is what an operation returns.
type result struct {
	err     Err
	value   string
	version int64
}

// codec persists Ops in Raft's log and results in snapshots (an
// rsm.Codec).
type codec struct{}

// AppendCommand appends the encoding of an Op to b.
func (codec) AppendCommand(b []byte, cmd any) ([]byte, error) {
	op, ok := cmd.(Op)
	if !ok {
		return nil, fmt.Errorf("kvraft: command %T is not an Op", cmd)
	}
	b = append(b, byte(op.Kind))
	b = wire.AppendString(b, op.Key)
	b = wire.AppendString(b, op.Value)
	return binary.AppendVarint(b, op.Version), nil
}

// DecodeCommand reads an Op written by AppendCommand.
func (codec) DecodeCommand(b []byte) (any, error) {
	d := wire.NewDecoder(b)
	op := Op{Kind: OpKind(d.Byte()), Key: d.String(), Value: d.String(), Version: d.Varint()}
	if err := d.Done(); err != nil {
		return nil, err
	}
	if op.Kind < OpGet || op.Kind > OpCPut {
		return nil, fmt.Errorf("kvraft: unknown operation %d in a log entry", int(op.Kind))
	}
	return op, nil
}

// AppendResult appends the encoding of a result to b.
func (codec) AppendResult(b []byte, r any) ([]byte, error) {
	res, ok := r.(result)
	if !ok {
		return nil, fmt.Errorf("kvraft: result %T is not a kvraft result", r)
	}
	b = wire.AppendString(b, string(res.err))
	b = wire.AppendString(b, res.value)
	return binary.AppendVarint(b, res.version), nil
}

// DecodeResult reads a result written by AppendResult.
func (codec) DecodeResult(b []byte) (any, error) {
	d := wire.NewDecoder(b)
	r := result{err: Err(d.String()), value: d.String(), version: d.Varint()}
	return r, d.Done()
}
