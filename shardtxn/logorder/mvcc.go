package logorder

import (
	"encoding/binary"
	"slices"

	"github.com/replab/replab/rsm/wire"
)

// A version is one value of a key, annotated with the tid of the
// transaction that wrote it.
type version struct {
	tid   int
	value string
}

// A store is a node's multi-version key/value state: every key it keeps,
// with its versions in tid order. Versions older than the horizon are
// collected, except the newest of them, which is still the value as of
// the horizon.
type store struct {
	keys    map[string][]version
	horizon int // reads as of a tid below it cannot be served
}

func newStore() *store { return &store{keys: map[string][]version{}} }

// get returns key's value as of tid: the newest version written at or
// before it.
func (st *store) get(key string, tid int) (value string, found bool) {
	vs := st.keys[key]
	i, _ := slices.BinarySearchFunc(vs, tid+1, func(v version, t int) int { return v.tid - t })
	if i == 0 {
		return "", false
	}
	return vs[i-1].value, true
}

// put writes key's version of tid. Writing a tid again replaces its
// version, so applying the log again from any point is idempotent.
func (st *store) put(key string, tid int, value string) {
	vs := st.keys[key]
	i, found := slices.BinarySearchFunc(vs, tid, func(v version, t int) int { return v.tid - t })
	if found {
		vs[i].value = value
		return
	}
	st.keys[key] = slices.Insert(vs, i, version{tid, value})
}

// readable reports whether reads as of tid can be served: its versions
// are not collected.
func (st *store) readable(tid int) bool { return tid >= st.horizon }

// collect drops the versions no read as of horizon or later needs, and
// moves the horizon there.
func (st *store) collect(horizon int) {
	if horizon <= st.horizon {
		return
	}
	st.horizon = horizon
	for k, vs := range st.keys {
		i, _ := slices.BinarySearchFunc(vs, horizon+1, func(v version, t int) int { return v.tid - t })
		if i > 1 {
			st.keys[k] = slices.Clone(vs[i-1:])
		}
	}
}

// versions returns how many versions the store holds.
func (st *store) versions() int {
	n := 0
	for _, vs := range st.keys {
		n += len(vs)
	}
	return n
}

// appendTo encodes the store, keys in order, so that equal stores give
// equal bytes.
func (st *store) appendTo(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(st.horizon))
	keys := make([]string, 0, len(st.keys))
	for k := range st.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = wire.AppendString(b, k)
		vs := st.keys[k]
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = binary.AppendUvarint(b, uint64(v.tid))
			b = wire.AppendString(b, v.value)
		}
	}
	return b
}

// decodeStore reads a store written by appendTo.
func decodeStore(d *wire.Decoder) *store {
	st := newStore()
	st.horizon = int(d.Uvarint())
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		k := d.String()
		var vs []version
		for m := d.Count(); m > 0 && d.Err() == nil; m-- {
			vs = append(vs, version{tid: int(d.Uvarint()), value: d.String()})
		}
		st.keys[k] = vs
	}
	return st
}
