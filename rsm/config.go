package rsm

import (
	"fmt"

	"github.com/replab/replab/raft"
)

// ReadMode says how a Server serves read-only commands.
type ReadMode int

// The read modes.
const (
	// ReadLog puts every read through the Raft log, like a write.
	ReadLog ReadMode = iota
	// ReadIndex has the leader confirm its leadership with a round of
	// heartbeats, then read once it has applied the commit index.
	ReadIndex
	// ReadLease has a leader holding a lease read its own state at once;
	// without a lease it falls back to ReadIndex. Safe only while clocks
	// drift less than the Raft config's LeaseDrift.
	ReadLease
)

var readModeNames = [...]string{"log", "ReadIndex", "lease"}

// String names the read mode.
func (m ReadMode) String() string {
	if m < 0 || int(m) >= len(readModeNames) {
		return fmt.Sprintf("ReadMode(%d)", int(m))
	}
	return readModeNames[m]
}

// Config configures a Server.
type Config struct {
	Reads ReadMode
	Raft  raft.Config
	// MaxRaftState is the size of Raft's persisted state, in bytes, at
	// which the server snapshots; -1 means never.
	MaxRaftState int
	bugs         bugs
}

// DefaultConfig reads through the log, with the lab's Raft timing, and
// never snapshots.
func DefaultConfig() Config { return Config{Reads: ReadLog, Raft: raft.LabConfig(), MaxRaftState: -1} }

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	if c.MaxRaftState == 0 || c.MaxRaftState < -1 {
		return fmt.Errorf("rsm: MaxRaftState %d must be positive, or -1 for no snapshots", c.MaxRaftState)
	}
	if c.Reads < ReadLog || c.Reads > ReadLease {
		return fmt.Errorf("rsm: unknown read mode %d", int(c.Reads))
	}
	return c.Raft.Validate()
}
