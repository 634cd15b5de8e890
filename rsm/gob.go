package rsm

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"
	"sync"
)

// GobCodec is a Codec for a service whose commands are values of type C
// and whose results are values of type R, encoded with encoding/gob: a
// service with many command shapes writes no encoder of its own. Gob
// encodes a map's entries in Go's random map order, so C and R must hold
// no maps (keep sorted slices instead): equal values must give equal bytes.
//
// Each encoding stands alone, as a fresh gob encoder writes it: the type's
// descriptors, then the value. The descriptors are built once per type
// and reused, since building them costs several times what the value does.
type GobCodec[C, R any] struct{}

// AppendCommand appends the encoding of cmd, a C, to b.
func (GobCodec[C, R]) AppendCommand(b []byte, cmd any) ([]byte, error) { return appendGob[C](b, cmd) }

// DecodeCommand reads a C written by AppendCommand.
func (GobCodec[C, R]) DecodeCommand(b []byte) (any, error) { return decodeGob[C](b) }

// AppendResult appends the encoding of result, an R, to b.
func (GobCodec[C, R]) AppendResult(b []byte, result any) ([]byte, error) {
	return appendGob[R](b, result)
}

// DecodeResult reads an R written by AppendResult.
func (GobCodec[C, R]) DecodeResult(b []byte) (any, error) { return decodeGob[R](b) }

func appendGob[T any](b []byte, v any) ([]byte, error) {
	t, ok := v.(T)
	if !ok {
		return nil, fmt.Errorf("rsm: GobCodec: %T is not a %T", v, t)
	}
	b, err := gobEncoderFor[T]().append(b, &t)
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
// bytes (prefix), then the value's message. A type that holds an
// interface can meet new concrete types in any value, whose descriptors
// a fresh encoder would send with it; such a type gets a fresh encoder
// each time (prefix nil).
type gobEncoder struct {
	mu     sync.Mutex // worlds run on goroutines of their own
	enc    *gob.Encoder
	buf    bytes.Buffer
	prefix []byte
}

// gobEncoders holds a *gobEncoder per reflect.Type.
var gobEncoders sync.Map

// gobEncoderFor returns T's encoder, making it on first use.
func gobEncoderFor[T any]() *gobEncoder {
	typ := reflect.TypeFor[T]()
	if e, ok := gobEncoders.Load(typ); ok {
		return e.(*gobEncoder)
	}
	e := &gobEncoder{}
	if !holdsInterface(typ, map[reflect.Type]bool{}) {
		// A zero value twice: the first encoding is the descriptors and
		// the message, the second the message alone.
		e.enc = gob.NewEncoder(&e.buf)
		var zero T
		if e.enc.Encode(&zero) == nil {
			first := bytes.Clone(e.buf.Bytes())
			e.buf.Reset()
			if e.enc.Encode(&zero) == nil {
				e.prefix = first[:len(first)-e.buf.Len()]
			}
		}
	}
	actual, _ := gobEncoders.LoadOrStore(typ, e)
	return actual.(*gobEncoder)
}

// append appends the stand-alone gob encoding of *v to b.
func (e *gobEncoder) append(b []byte, v any) ([]byte, error) {
	if e.prefix == nil {
		buf := bytes.NewBuffer(b)
		err := gob.NewEncoder(buf).Encode(v)
		return buf.Bytes(), err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
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
