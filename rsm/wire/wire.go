// Package wire is the compact binary encoding that services use for their
// log entries, results and snapshots: varints, length-prefixed strings,
// and a Decoder whose first error sticks, so that a truncated or garbled
// input gives one clear error instead of a panic deep inside decoding.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrTruncated says an encoding ended before what was being read.
var ErrTruncated = errors.New("wire: truncated encoding")

// AppendString appends s, length first.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// AppendBytes appends p, length first.
func AppendBytes(b, p []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(p))), p...)
}

// A Decoder reads what the Append functions (and binary.AppendUvarint and
// AppendVarint) wrote. After the first error every read returns a zero
// value and Err reports that error.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder returns a decoder reading b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err returns the first error met, or nil.
func (d *Decoder) Err() error { return d.err }

// Rest returns the bytes not read yet.
func (d *Decoder) Rest() []byte { return d.b }

// Done returns the first error met, or an error if bytes are left over.
func (d *Decoder) Done() error {
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("wire: %d trailing bytes after decoding", len(d.b))
	}
	return d.err
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 { return readVarint(d, binary.Uvarint) }

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads one varint with parse (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](d *Decoder, parse func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := parse(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Count reads a length of things, each taking at least one byte, so that a
// garbled length cannot make a caller allocate or loop far beyond the
// input.
func (d *Decoder) Count() int {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// String reads a length-prefixed string.
func (d *Decoder) String() string { return string(d.Bytes()) }

// Bytes reads a length-prefixed byte slice (a copy).
func (d *Decoder) Bytes() []byte {
	n := d.Count()
	if d.err != nil {
		return nil
	}
	p := append([]byte(nil), d.b[:n]...)
	d.b = d.b[n:]
	return p
}

func (d *Decoder) fail() {
	if d.err == nil {
		d.err = ErrTruncated
	}
}
