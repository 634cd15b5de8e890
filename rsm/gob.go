package rsm

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"
)

// GobCodec is a Codec for a service whose commands are values of type C
// and whose results are values of type R, encoded with encoding/gob: a
// service with many command shapes writes no encoder of its own. Gob
// encodes a map's entries in Go's random map order, so C and R must hold
// no maps (keep sorted slices instead): equal values must give equal bytes.
//
// Each encoding stands alone, as a fresh gob encoder writes it: the type's
// descriptors, then the value. A codec made by NewGobCodec builds the
// descriptors once and reuses them, since building them costs several
// times what the value does; the zero GobCodec builds them every time.
// A codec belongs to one server (one world's goroutine): give each server
// its own.
type GobCodec[C, R any] struct {
	cmd, res *gobEncoder
}

// NewGobCodec returns a GobCodec that builds C's and R's gob descriptors
// once.
func NewGobCodec[C, R any]() GobCodec[C, R] {
	return GobCodec[C, R]{newGobEncoder[C](), newGobEncoder[R]()}
}

// AppendCommand appends the encoding of cmd, a C, to b.
func (c GobCodec[C, R]) AppendCommand(b []byte, cmd any) ([]byte, error) {
	return appendGob[C](c.cmd, b, cmd)
}

// DecodeCommand reads a C written by AppendCommand.
func (GobCodec[C, R]) DecodeCommand(b []byte) (any, error) { return decodeGob[C](b) }

// AppendResult appends the encoding of result, an R, to b.
func (c GobCodec[C, R]) AppendResult(b []byte, result any) ([]byte, error) {
	return appendGob[R](c.res, b, result)
}

// DecodeResult reads an R written by AppendResult.
func (GobCodec[C, R]) DecodeResult(b []byte) (any, error) { return decodeGob[R](b) }

// GobSnapshots encodes a state machine's snapshots, values of type S,
// with encoding/gob, each standing alone as a fresh gob encoder writes it
// (the bytes are the same): one made by NewGobSnapshots builds S's
// descriptors once, as NewGobCodec does for commands, since a snapshot
// is taken often and its descriptors cost as much to build as a small
// state does to encode; the zero GobSnapshots builds them every time. S
// must hold no maps (gob writes them in Go's random order). It belongs to
// one server (one world's goroutine): give each state machine its own.
type GobSnapshots[S any] struct {
	enc *gobEncoder
}

// NewGobSnapshots returns a GobSnapshots that builds S's gob descriptors
// once.
func NewGobSnapshots[S any]() GobSnapshots[S] { return GobSnapshots[S]{newGobEncoder[S]()} }

// Encode returns the stand-alone gob encoding of s.
func (g GobSnapshots[S]) Encode(s S) ([]byte, error) { return g.enc.append(nil, &s) }

// appendGob appends v, a T, to b with e (nil: a fresh encoder).
func appendGob[T any](e *gobEncoder, b []byte, v any) ([]byte, error) {
	t, ok := v.(T)
	if !ok {
		return nil, fmt.Errorf("rsm: GobCodec: %T is not a %T", v, t)
	}
	b, err := e.append(b, &t)
	if err != nil {
		return nil, fmt.Errorf("rsm: GobCodec: %w", err)
	}
	return b, nil
}

func decodeGob[T any](b []byte) (any, error) {
	var t T
	r := bytes.NewReader(b)
	if err := gob.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("rsm: GobCodec: %w", err)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("rsm: GobCodec: %d bytes after the value", r.Len())
	}
	return t, nil
}

// A gobEncoder writes values of one type as a fresh gob encoder would,
// from an encoder that has already sent the type's descriptors: those
// bytes (prefix), then the value's message.
type gobEncoder struct {
	enc    *gob.Encoder
	buf    bytes.Buffer
	prefix []byte
}

// newGobEncoder returns T's encoder, or nil for a type that a fresh
// encoder must write each time: one that holds an interface (any value
// may bring new concrete types, whose descriptors a fresh encoder sends
// with it), or that gob cannot encode (the fresh encoder says why).
func newGobEncoder[T any]() *gobEncoder {
	if holdsInterface(reflect.TypeFor[T](), map[reflect.Type]bool{}) {
		return nil
	}
	// A zero value twice: the first encoding is the descriptors and the
	// message, the second the message alone.
	e := &gobEncoder{}
	e.enc = gob.NewEncoder(&e.buf)
	var zero T
	if e.enc.Encode(&zero) != nil {
		return nil
	}
	first := bytes.Clone(e.buf.Bytes())
	e.buf.Reset()
	if e.enc.Encode(&zero) != nil {
		return nil
	}
	e.prefix = first[:len(first)-e.buf.Len()]
	return e
}

// append appends the stand-alone gob encoding of *v to b.
func (e *gobEncoder) append(b []byte, v any) ([]byte, error) {
	if e == nil {
		buf := bytes.NewBuffer(b)
		err := gob.NewEncoder(buf).Encode(v)
		return buf.Bytes(), err
	}
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return append(append(b, e.prefix...), e.buf.Bytes()...), nil
}

// holdsInterface reports whether a value of type t can hold an interface
// value (seen: the types already being looked at).
func holdsInterface(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsInterface(t.Elem(), seen)
	case reflect.Map:
		return holdsInterface(t.Key(), seen) || holdsInterface(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsInterface(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
