package kvraft

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/replab/replab/rsm/wire"
	"github.com/replab/replab/sim"
)

// A store is the key/value state: an rsm.StateMachine.
type store struct {
	data map[string]*value
	// last is the kind and key of the last operation applied, for
	// Inspect; applied is false before the first.
	last    Op
	applied bool
}

// A value is one key's value and version. The value is kept in a
// strings.Builder so that an Append costs the appended bytes, not the whole
// value (values the lab's tests append to grow to tens of kilobytes), and a
// Get returns it without a copy: strings handed out stay valid, as a
// Builder never rewrites bytes it has written.
type value struct {
	value   strings.Builder
	version int64
}

// Apply executes an Op.
func (s *store) Apply(cmd any) any {
	op := cmd.(Op)
	s.last, s.applied = Op{Kind: op.Kind, Key: op.Key}, true
	cur, ok := s.data[op.Key]
	if !ok {
		if op.Kind == OpGet {
			return result{err: ErrNoKey}
		}
		cur = &value{}
	}
	switch op.Kind {
	case OpGet:
		return result{err: OK, value: cur.value.String(), version: cur.version}
	case OpPut:
		cur.value.Reset()
	case OpCPut:
		if op.Version != cur.version {
			return result{err: ErrVersion}
		}
		cur.value.Reset()
	}
	cur.value.WriteString(op.Value)
	cur.version++
	s.data[op.Key] = cur
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
		b = wire.AppendString(b, v.value.String())
		b = binary.AppendVarint(b, v.version)
	}
	return b
}

// Restore replaces the data with a snapshot's.
func (s *store) Restore(snap []byte) error {
	data := map[string]*value{}
	if len(snap) > 0 {
		d := wire.NewDecoder(snap)
		for n := d.Count(); n > 0 && d.Err() == nil; n-- {
			k := d.String()
			v := &value{}
			v.value.WriteString(d.String())
			v.version = d.Varint()
			data[k] = v
		}
		if err := d.Done(); err != nil {
			return err
		}
	}
	s.data = data
	return nil
}

// Inspect shows the store's state (sim.Inspector): how many keys it
// holds, and the kind and key of the last operation it applied ("Put x";
// "-" before the first).
func (s *store) Inspect() []sim.Field {
	last := "-"
	if s.applied {
		last = s.last.Kind.String() + " " + s.last.Key
	}
	return []sim.Field{
		{Name: "keys", Value: strconv.Itoa(len(s.data))},
		{Name: "last", Value: last},
	}
}
