package linearize

import "strings"

// A kvState is one key's value and version (every write bumps the
// version). It is immutable, and porcupine holds it by pointer, so a step
// that leaves the state as it was costs nothing. The value is a chain of
// pieces: an append links its piece to the value before it instead of
// copying the whole value, so it costs what it appends, not what the key
// holds. Its FNV-1a hash and length grow with it, so states compare by
// pointer, then hash, version and length, and only then byte by byte.
type kvState struct {
	prev    *kvState // the value before an append; nil after a put
	piece   string   // what the last write wrote or appended
	length  int      // the whole value's length
	hash    uint64   // the whole value's FNV-1a hash
	version int64
}

// FNV-1a's 64-bit parameters.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a continues the FNV-1a hash h over s.
func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// newKVState returns a missing key's state: empty, version 0.
func newKVState() *kvState { return &kvState{hash: fnvOffset} }

// put returns the state after a write of v.
func (st *kvState) put(v string) *kvState {
	return &kvState{piece: v, length: len(v), hash: fnv1a(fnvOffset, v), version: st.version + 1}
}

// append returns the state after an append of v.
func (st *kvState) append(v string) *kvState {
	return &kvState{prev: st, piece: v, length: st.length + len(v), hash: fnv1a(st.hash, v), version: st.version + 1}
}

// is reports whether the state's value is v, comparing from the end, piece
// by piece.
func (st *kvState) is(v string) bool {
	if st.length != len(v) {
		return false
	}
	for ; st != nil; st = st.prev {
		if !strings.HasSuffix(v, st.piece) {
			return false
		}
		v = v[:len(v)-len(st.piece)]
	}
	return true
}

// sameValue reports whether two values of the same length are equal,
// comparing from the end.
func (st *kvState) sameValue(other *kvState) bool {
	var a, b string // what is left to compare of st's and other's pieces
	for {
		switch {
		case a == "" && st == nil:
			return true // and other is at its end too, the lengths being equal
		case a == "":
			a, st = st.piece, st.prev
		case b == "":
			b, other = other.piece, other.prev
		default:
			n := min(len(a), len(b))
			if a[len(a)-n:] != b[len(b)-n:] {
				return false
			}
			a, b = a[:len(a)-n], b[:len(b)-n]
		}
	}
}

// String returns the state's value.
func (st *kvState) String() string {
	buf := make([]byte, st.length)
	end := len(buf)
	for s := st; s != nil; s = s.prev {
		end -= copy(buf[end-len(s.piece):end], s.piece)
	}
	return string(buf)
}

// kvEqual reports whether two states are the same, comparing their values
// last.
func kvEqual(a, b any) bool {
	x, y := a.(*kvState), b.(*kvState)
	return x == y || x.hash == y.hash && x.version == y.version && x.length == y.length && x.sameValue(y)
}

// kvHash returns a state's hash: its value's, so that equal states have
// equal hashes. The version is left out: porcupine hashes a state with
// the set of operations linearized so far, whose writes all but fix it.
func kvHash(a any) uint64 { return a.(*kvState).hash }
