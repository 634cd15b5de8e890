package wire

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	b := []byte{7}
	b = AppendString(b, "héllo")
	b = binary.AppendVarint(b, -42)
	b = binary.AppendUvarint(b, 1<<40)
	b = AppendBytes(b, []byte{1, 2, 3})
	d := NewDecoder(b)
	assert.Equal(t, byte(7), d.Byte())
	assert.Equal(t, "héllo", d.String())
	assert.Equal(t, int64(-42), d.Varint())
	assert.Equal(t, uint64(1<<40), d.Uvarint())
	assert.Equal(t, []byte{1, 2, 3}, d.Bytes())
	require.NoError(t, d.Done())

	// Every truncation is an error, never a panic.
	for n := range len(b) {
		d := NewDecoder(b[:n])
		d.Byte()
		_ = d.String()
		d.Varint()
		d.Uvarint()
		d.Bytes()
		assert.ErrorIs(t, d.Done(), ErrTruncated, "prefix of %d bytes", n)
	}
}

func TestGarbledLengths(t *testing.T) {
	d := NewDecoder(binary.AppendUvarint(nil, 1<<60))
	assert.Equal(t, "", d.String())
	assert.ErrorIs(t, d.Err(), ErrTruncated)
	d = NewDecoder([]byte{1, 'a', 'b'})
	assert.Equal(t, "a", d.String())
	assert.EqualError(t, d.Done(), "wire: 1 trailing bytes after decoding")
	d = NewDecoder(nil)
	assert.Equal(t, 0, d.Count())
	assert.Equal(t, int64(0), d.Varint())
	assert.Empty(t, d.Rest())
}
