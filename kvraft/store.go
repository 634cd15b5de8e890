package kvraft

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/replab/replab/wire"
)

// A store is the key/value state: an rsm.StateMachine.
type store struct {
	data map[string]value
}

type value struct {
	Value   string
	Version int64
}

// Apply executes an Op.
func (s *store) Apply(cmd any) any {
	op := cmd.(Op)
	cur, ok := s.data[op.Key]
	switch op.Kind {
	case OpGet:
		if !ok {
			return result{err: ErrNoKey}
		}
		return result{err: OK, value: cur.Value, version: cur.Version}
	case OpPut:
		s.data[op.Key] = value{op.Value, cur.Version + 1}
	case OpAppend:
		s.data[op.Key] = value{cur.Value + op.Value, cur.Version + 1}
	case OpCPut:
		if op.Version != cur.Version {
			return result{err: ErrVersion}
		}
		s.data[op.Key] = value{op.Value, cur.Version + 1}
	}
	return result{err: OK}
}

// Snapshot encodes the data in key order, so that the bytes are
// deterministic.
func (s *store) Snapshot() []byte {
	keys := make([]string, 0, len(s.data))
	for k := range s.data {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	b := binary.AppendUvarint(nil, uint64(len(keys)))
	for _, k := range keys {
		v := s.data[k]
		b = wire.AppendString(b, k)
		b = wire.AppendString(b, v.Value)
		b = binary.AppendVarint(b, v.Version)
	}
	return b
}

// Restore replaces the data with a snapshot's.
func (s *store) Restore(snap []byte) error {
	data := map[string]value{}
	if len(snap) > 0 {
		d := wire.NewDecoder(snap)
		for n := d.Count(); n > 0 && d.Err() == nil; n-- {
			k := d.String()
			data[k] = value{Value: d.String(), Version: d.Varint()}
		}
		if err := d.Done(); err != nil {
			return err
		}
	}
	s.data = data
	return nil
}
