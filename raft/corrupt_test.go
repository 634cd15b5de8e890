package raft

// Corrupt persisted state: a node must refuse, with an error naming what is
// wrong, to start from a state or snapshot that is truncated, damaged or
// malformed; it must never panic inside decoding or start on garbage.

import (
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type gobCmd struct{ A, B int }

func init() { gob.Register(gobCmd{}) }

// pairCodec persists [2]int commands as two bytes, and refuses a pair with
// a negative number.
type pairCodec struct{}

func (pairCodec) AppendCommand(b []byte, cmd any) ([]byte, error) {
	p := cmd.([2]int)
	if p[0] < 0 || p[1] < 0 {
		return nil, fmt.Errorf("negative pair %v", p)
	}
	return append(b, byte(p[0]), byte(p[1])), nil
}

func (pairCodec) DecodeCommand(b []byte) (any, error) {
	if len(b) != 2 {
		return nil, fmt.Errorf("a pair is 2 bytes, not %d", len(b))
	}
	return [2]int{int(b[0]), int(b[1])}, nil
}

// load starts server 0 of a 3-server cluster on a fresh host whose
// persister holds state and snapshot. Its peers' ends are nil: the world
// never runs, so it never sends.
func load(t *testing.T, state, snapshot []byte) (*Raft, error) {
	t.Helper()
	w := sim.NewWorld(1)
	h := w.NewHost("h")
	h.Persister().Save(state, snapshot)
	rc := LabConfig()
	rc.Codec = pairCodec{}
	return Make(h, make([]*labrpc.ClientEnd, 3), 0, h.Persister(), func(ApplyMsg) {}, rc)
}

// savedState returns what a node with a snapshot up to index 2 and entries
// 3..8 of every built-in command kind and one for gob persists.
func savedState(t *testing.T) (state, snapshot []byte) {
	t.Helper()
	rf, err := load(t, nil, nil)
	require.NoError(t, err)
	rf.term, rf.votedFor = 4, 2
	rf.log.codec = nil // gobCmd goes through gob
	for i, cmd := range []any{7, "x", nil, -3, "hello", []byte{1, 2, 3}, gobCmd{5, 6}, 8} {
		rf.log.append(Entry{Term: 1 + i/3, Command: cmd})
	}
	rf.lastApplied = 2
	rf.Snapshot(2, []byte("the service's state at 2"))
	ps := rf.persister
	return ps.ReadRaftState(), ps.ReadSnapshot()
}

func TestStateRoundTrip(t *testing.T) {
	state, snapshot := savedState(t)
	rf, err := load(t, state, snapshot)
	require.NoError(t, err)
	assert.Equal(t, 4, rf.term)
	assert.Equal(t, 2, rf.votedFor)
	assert.Equal(t, []byte("the service's state at 2"), rf.snapshot)
	assert.Equal(t, 2, rf.log.base)
	assert.Equal(t, []Entry{{Term: 1}, {1, nil}, {2, -3}, {2, "hello"}, {2, []byte{1, 2, 3}}, {3, gobCmd{5, 6}}, {3, 8}}, rf.log.entries)
	assert.Equal(t, 2, rf.commitIndex, "a restarted node starts committed up to its snapshot")
	// What it saves again is what it loaded.
	rf.dirty = true
	rf.flush()
	assert.Equal(t, state, rf.persister.ReadRaftState())
}

func TestTruncatedStateRejected(t *testing.T) {
	state, snapshot := savedState(t)
	for n := range len(state) {
		_, err := load(t, state[:n], snapshot)
		require.Error(t, err, "state cut to %d of %d bytes", n, len(state))
		var want string
		switch {
		case n == 0:
			want = fmt.Sprintf("a snapshot of %d bytes without a Raft state", len(snapshot))
		case n < footer:
			want = fmt.Sprintf("%d bytes, too short for a Raft state", n)
		default:
			want = "the state is damaged or truncated"
		}
		assert.ErrorContains(t, err, want, "state cut to %d bytes", n)
		assert.True(t, strings.HasPrefix(err.Error(), "raft: server 0: bad persisted state: "), err.Error())
	}
}

func TestDamagedStateRejected(t *testing.T) {
	state, snapshot := savedState(t)
	for i := range state {
		for _, flip := range []byte{0x01, 0x80, 0xff} {
			bad := append([]byte(nil), state...)
			bad[i] ^= flip
			_, err := load(t, bad, snapshot)
			assert.ErrorContains(t, err, "the state is damaged or truncated", "byte %d ^ %#x", i, flip)
		}
	}
}

func TestDamagedSnapshotRejected(t *testing.T) {
	state, snapshot := savedState(t)
	want := fmt.Sprintf("not the %08x saved with the state: it is damaged, truncated or from another state", crc32.Checksum(snapshot, castagnoli))
	for n := range len(snapshot) {
		_, err := load(t, state, snapshot[:n])
		assert.ErrorContains(t, err, fmt.Sprintf("snapshot of %d bytes has checksum", n))
		assert.ErrorContains(t, err, want)
	}
	for i := range snapshot {
		bad := append([]byte(nil), snapshot...)
		bad[i] ^= 0x10
		_, err := load(t, state, bad)
		assert.ErrorContains(t, err, want, "byte %d", i)
	}
}

// seal frames log metadata and node state after entries the way persisted
// does, with a valid checksum, so that a test can hand the decoder
// well-checksummed nonsense.
func seal(entries, meta []byte) []byte {
	b := append(append([]byte(nil), entries...), meta...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// uv and v encode unsigned and signed varints, back to back.
func uv(xs ...uint64) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.AppendUvarint(b, x)
	}
	return b
}

func v(x int64) []byte { return binary.AppendVarint(nil, x) }

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

var noSnap = binary.LittleEndian.AppendUint32(nil, 0) // the checksum of no snapshot

func TestMalformedStateRejected(t *testing.T) {
	snap := []byte("snap")
	snapSum := binary.LittleEndian.AppendUint32(nil, crc32.Checksum(snap, castagnoli))
	for _, c := range []struct {
		name, want      string
		state, snapshot []byte
	}{
		{"metadata longer than the state", "metadata of 5 bytes does not fit in the 4 bytes before it",
			func() []byte { b := seal(nil, []byte{1, 2, 3, 4}); b[4] = 5; return fixSum(b) }(), nil},
		{"no base", "base: truncated", seal(nil, nil), nil},
		{"base out of range", "base: 9223372036854775808 is out of range", seal(nil, uv(math.MaxInt64+1, 0, 0, 0)), nil},
		{"no base term", "base term: truncated", seal(nil, uv(0)), nil},
		{"no entry count", "entry count: truncated", seal(nil, uv(0, 0)), nil},
		{"entry missing", "entry 6: term: truncated", seal(uv(1, cmdNil), uv(4, 1, 2)), nil},
		{"command missing", "entry 5: command of term 1: truncated", seal(uv(1), uv(4, 1, 1)), nil},
		{"term going back", "entry 1: term 2 is below the term 3 before it", seal(uv(2, cmdNil), uv(0, 3, 1)), nil},
		{"bytes after the entries", "2 bytes after the last entry", seal(uv(1, cmdNil), cat(uv(0, 0, 0, 1), v(-1), noSnap)), nil},
		{"no term", "term: truncated", seal(nil, uv(0, 0, 0)), nil},
		{"term out of range", "term: 18446744073709551615 is out of range", seal(nil, uv(0, 0, 0, math.MaxUint64)), nil},
		{"no vote", "vote: truncated", seal(nil, uv(0, 0, 0, 1)), nil},
		{"no snapshot checksum", "0 bytes after the vote, not a 4-byte snapshot checksum", seal(nil, cat(uv(0, 0, 0, 1), v(-1))), nil},
		{"too long a snapshot checksum", "5 bytes after the vote, not a 4-byte snapshot checksum", seal(nil, cat(uv(0, 0, 0, 1), v(-1), noSnap, []byte{0})), nil},
		{"vote below -1", "vote -2 is not a peer index in -1..2", seal(nil, cat(uv(0, 0, 0, 1), v(-2), noSnap)), nil},
		{"vote beyond the peers", "vote 3 is not a peer index in -1..2", seal(nil, cat(uv(0, 0, 0, 1), v(3), noSnap)), nil},
		{"term below the log's", "term 1 is below the log's last term 2", seal(uv(2, cmdNil), cat(uv(0, 0, 1, 1), v(-1), noSnap)), nil},
		{"snapshot missing", "snapshot of 0 bytes has checksum 00000000, not the", seal(nil, cat(uv(4, 1, 0, 1), v(-1), snapSum)), nil},
		{"snapshot unexpected", "snapshot of 4 bytes has checksum", seal(nil, cat(uv(0, 0, 0, 1), v(-1), noSnap)), snap},
		{"unknown command", "entry 1: command of term 1: unknown command tag 9", seal(uv(1, 9), cat(uv(0, 0, 1, 1), v(-1), noSnap)), nil},
		{"int command cut", "entry 1: command of term 1: truncated", seal(uv(1, cmdInt), cat(uv(0, 0, 1, 1), v(-1), noSnap)), nil},
		{"string command cut", "entry 1: command of term 1: truncated", seal(uv(1, cmdString, 3, 'a'), cat(uv(0, 0, 1, 1), v(-1), noSnap)), nil},
		{"string length cut", "entry 1: command of term 1: truncated", seal(uv(1, cmdString), cat(uv(0, 0, 1, 1), v(-1), noSnap)), nil},
		{"gob command garbled", "entry 1: command of term 1: decoding a command: ", seal(cat(uv(1, cmdGob, 2), []byte{0xff, 0xff}), cat(uv(0, 0, 1, 1), v(-1), noSnap)), nil},
		{"codec command garbled", "entry 1: command of term 1: a pair is 2 bytes, not 1", seal(uv(1, cmdCodec, 1, 7), cat(uv(0, 0, 1, 1), v(-1), noSnap)), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, c.state, c.snapshot)
			assert.ErrorContains(t, err, c.want)
		})
	}
}

// fixSum recomputes the checksum at the end of a state.
func fixSum(b []byte) []byte {
	n := len(b) - 4
	return binary.LittleEndian.AppendUint32(b[:n], crc32.Checksum(b[:n], castagnoli))
}

// TestEdgeStatesLoad loads the well-formed states at the edges of what the
// checks refuse.
func TestEdgeStatesLoad(t *testing.T) {
	for _, c := range []struct {
		name        string
		state       []byte
		term, votes int
		last        int
	}{
		{"no entries", seal(nil, cat(uv(0, 0, 0, 0), v(-1), noSnap)), 0, -1, 0},
		{"the largest term", seal(nil, cat(uv(0, 0, 0, math.MaxInt64), v(2), noSnap)), math.MaxInt64, 2, 0},
		{"entries of one term", seal(uv(3, cmdNil, 3, cmdNil), cat(uv(0, 3, 2, 3), v(0), noSnap)), 3, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			rf, err := load(t, c.state, nil)
			require.NoError(t, err)
			assert.Equal(t, c.term, rf.term)
			assert.Equal(t, c.votes, rf.votedFor)
			assert.Equal(t, c.last, rf.log.last())
		})
	}
}

func TestCommandsSurviveEncoding(t *testing.T) {
	for _, cmd := range []any{nil, 0, -7, 1 << 40, "", "hello", []byte{1, 2}, gobCmd{1, 2}, [2]int{3, 4}} {
		var codec CommandCodec
		if _, ok := cmd.([2]int); ok {
			codec = pairCodec{}
		}
		b := encodeCommand(nil, cmd, codec)
		got, rest, err := decodeCommand(b, codec)
		require.NoError(t, err)
		assert.Empty(t, rest)
		assert.Equal(t, cmd, got)
		// Every prefix is an error, never a panic or a shorter command.
		for n := range len(b) {
			_, _, err := decodeCommand(b[:n], codec)
			assert.Error(t, err, "%v cut to %d bytes", cmd, n)
		}
	}
	_, _, err := decodeCommand(encodeCommand(nil, [2]int{1, 2}, pairCodec{}), nil)
	assert.EqualError(t, err, "a command was persisted with a codec, and none is configured")
	assert.PanicsWithValue(t,
		"raft: cannot persist command of type raft.opaque (register it with gob.Register): gob: type not registered for interface: raft.opaque",
		func() { encodeCommand(nil, opaque{1, 2}, nil) })
	assert.PanicsWithValue(t, "raft: cannot persist command [-1 2]: negative pair [-1 2]",
		func() { encodeCommand(nil, [2]int{-1, 2}, pairCodec{}) })
}

type opaque struct{ A, B int }

// runCodec persists a runCmd n as the n bytes 0, 1, 2, ... (mod 251).
type runCodec struct{}

type runCmd int

func (runCodec) AppendCommand(b []byte, cmd any) ([]byte, error) {
	for i := range int(cmd.(runCmd)) {
		b = append(b, byte(i%251))
	}
	return b, nil
}

func (runCodec) DecodeCommand(b []byte) (any, error) {
	for i, c := range b {
		if c != byte(i%251) {
			return nil, fmt.Errorf("byte %d of a run is %d", i, c)
		}
	}
	return runCmd(len(b)), nil
}

// TestCodecCommandsKeepTheirPlace checks that a codec's encoding, written
// in place with its length put in front afterwards, lands whole after what
// the buffer held, whatever the length's own length (1 to 3 bytes here).
func TestCodecCommandsKeepTheirPlace(t *testing.T) {
	lengths := []runCmd{0, 1, 127, 128, 300, 16383, 16384, 20000}
	b := []byte("head")
	for _, n := range lengths {
		b = encodeCommand(b, n, runCodec{})
	}
	require.Equal(t, "head", string(b[:4]))
	rest := b[4:]
	for _, n := range lengths {
		var got any
		var err error
		got, rest, err = decodeCommand(rest, runCodec{})
		require.NoError(t, err)
		assert.Equal(t, n, got)
	}
	assert.Empty(t, rest)
}

// FuzzRestore hands a node well-checksummed arbitrary metadata and
// entries: it must load them or refuse them, never panic. The normal suite
// runs only the seeds; go test -fuzz FuzzRestore ./raft explores.
func FuzzRestore(f *testing.F) {
	f.Add(uv(1, cmdInt, 2), cat(uv(0, 0, 1, 1), v(-1), noSnap))
	f.Add(uv(2, cmdString, 1, 'x', 2, cmdGob, 1, 0), cat(uv(7, 1, 2, 2), v(2), noSnap))
	f.Add([]byte(nil), cat(uv(math.MaxUint64, 0, math.MaxUint64), v(math.MinInt64)))
	f.Fuzz(func(t *testing.T, entries, meta []byte) {
		rf := &Raft{peers: make([]*labrpc.ClientEnd, 3), cfg: Config{Codec: pairCodec{}}, votedFor: -1, log: newLog(pairCodec{})}
		if err := rf.restore(seal(entries, meta), nil); err != nil {
			return
		}
		// What loads saves and loads again as the same state.
		again := &Raft{peers: rf.peers, cfg: rf.cfg, log: newLog(pairCodec{})}
		require.NoError(t, again.restore(rf.log.persisted(rf.encodeState(nil)), nil))
		assert.Equal(t, []any{rf.term, rf.votedFor, rf.log.base, rf.log.entries}, []any{again.term, again.votedFor, again.log.base, again.log.entries})
	})
}
