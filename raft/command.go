package raft

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
)

// Command encodings in the persisted log. Ints, strings and byte slices,
// the commands of the lab's tests, have compact forms of their own; any
// other command goes through encoding/gob, so its type must be registered
// with gob.Register, as with the lab's labgob.
const (
	cmdNil = iota
	cmdInt
	cmdString
	cmdBytes
	cmdGob
	cmdCodec
)

// encodeCommand appends cmd's persisted form to b, using codec (if not
// nil) for commands without a built-in form.
func encodeCommand(b []byte, cmd any, codec CommandCodec) []byte {
	switch v := cmd.(type) {
	case nil:
		return append(b, cmdNil)
	case int:
		return binary.AppendVarint(append(b, cmdInt), int64(v))
	case string:
		return append(binary.AppendUvarint(append(b, cmdString), uint64(len(v))), v...)
	case []byte:
		return append(binary.AppendUvarint(append(b, cmdBytes), uint64(len(v))), v...)
	default:
		if codec != nil {
			return appendCodec(append(b, cmdCodec), cmd, codec)
		}
		var buf bytes.Buffer
		boxed := cmd // gob takes a pointer to it; a copy, so that cmd does not escape on the other paths
		if err := gob.NewEncoder(&buf).Encode(&boxed); err != nil {
			panic(fmt.Sprintf("raft: cannot persist command of type %T (register it with gob.Register): %v", cmd, err))
		}
		return append(binary.AppendUvarint(append(b, cmdGob), uint64(buf.Len())), buf.Bytes()...)
	}
}

// appendCodec appends cmd's encoding by codec to b, length first. The codec
// writes straight into b, and the length goes in front afterwards, so that
// encoding allocates nothing when b has room.
func appendCodec(b []byte, cmd any, codec CommandCodec) []byte {
	at := len(b)
	b, err := codec.AppendCommand(b, cmd)
	if err != nil {
		panic(fmt.Sprintf("raft: cannot persist command %v: %v", cmd, err))
	}
	n := len(b) - at
	var length [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(length[:], uint64(n))
	b = append(b, length[:k]...)
	copy(b[at+k:], b[at:at+n])
	copy(b[at:], length[:k])
	return b
}

// decodeCommand reads a command written by encodeCommand, returning what
// follows it.
func decodeCommand(b []byte, codec CommandCodec) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errShort
	}
	tag, b := b[0], b[1:]
	switch tag {
	case cmdNil:
		return nil, b, nil
	case cmdInt:
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, nil, errShort
		}
		return int(v), b[n:], nil
	case cmdString, cmdBytes, cmdGob, cmdCodec:
		n, b, err := uvarint(b)
		if err != nil || len(b) < n {
			return nil, nil, errShort
		}
		data, rest := b[:n], b[n:]
		switch tag {
		case cmdString:
			return string(data), rest, nil
		case cmdBytes:
			return bytes.Clone(data), rest, nil
		case cmdCodec:
			if codec == nil {
				return nil, nil, fmt.Errorf("a command was persisted with a codec, and none is configured")
			}
			cmd, err := codec.DecodeCommand(data)
			return cmd, rest, err
		}
		var cmd any
		if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&cmd); err != nil {
			return nil, nil, fmt.Errorf("decoding a command: %w", err)
		}
		return cmd, rest, nil
	default:
		return nil, nil, fmt.Errorf("unknown command tag %d", tag)
	}
}
