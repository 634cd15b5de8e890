package rsm

import (
	"encoding/binary"
	"fmt"

	"github.com/replab/replab/rsm/wire"
)

// An entry is what a Server puts in the Raft log: a command and the
// session of the request that carries it; or, with the session
// barrierClient and no command, a new leader's barrier.
type entry struct {
	Session
	Cmd any
}

// barrierClient marks a new leader's barrier: an entry of its own term
// that, once committed, commits every entry before it (Raft commits an
// earlier term's entries only so), so that they apply everywhere even if
// no client asks for anything more. Client IDs are never negative.
const barrierClient = -1

func (e entry) barrier() bool { return e.Client == barrierClient }

// entryCodec persists entries in Raft's log (a raft.CommandCodec): the
// session, then the command in the service's encoding.
type entryCodec struct{ codec Codec }

// AppendCommand appends the encoding of an entry to b.
func (c entryCodec) AppendCommand(b []byte, cmd any) ([]byte, error) {
	e, ok := cmd.(entry)
	if !ok {
		return nil, fmt.Errorf("rsm: command %T is not an rsm entry", cmd)
	}
	b = binary.AppendVarint(b, e.Client)
	b = binary.AppendVarint(b, e.Seq)
	if e.barrier() {
		return b, nil
	}
	return c.codec.AppendCommand(b, e.Cmd)
}

// DecodeCommand reads an entry written by AppendCommand.
func (c entryCodec) DecodeCommand(b []byte) (any, error) {
	d := wire.NewDecoder(b)
	e := entry{Session: Session{Client: d.Varint(), Seq: d.Varint()}}
	if err := d.Err(); err != nil {
		return nil, err
	}
	if e.barrier() {
		return e, d.Done()
	}
	cmd, err := c.codec.DecodeCommand(d.Rest())
	if err != nil {
		return nil, err
	}
	e.Cmd = cmd
	return e, nil
}
