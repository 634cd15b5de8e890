package rsm

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// GobCodec is a Codec for a service whose commands are values of type C
// and whose results are values of type R, encoded with encoding/gob: a
// service with many command shapes writes no encoder of its own. Gob
// encodes a map's entries in Go's random map order, so C and R must hold
// no maps (keep sorted slices instead): equal values must give equal bytes.
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
	buf := bytes.NewBuffer(b)
	if err := gob.NewEncoder(buf).Encode(&t); err != nil {
		return nil, fmt.Errorf("rsm: GobCodec: %w", err)
	}
	return buf.Bytes(), nil
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
