package logorder

import (
	"fmt"
	"time"

	"github.com/replab/replab/rsm"
)

// Config configures the servers of a deployment.
type Config struct {
	// RSM is the log's configuration: Raft timing and the read mode. Its
	// MaxRaftState must be -1: nodes keep different keys, so a leader's
	// snapshot cannot replace a follower's state; each node trims its own
	// log instead (see SnapshotEvery).
	RSM rsm.Config
	// SnapshotEvery is how many tids a node processes between snapshots
	// of its state (the processed tid, the MVCC store and the queue) to
	// its own disk (paper 004: 1024). Each node tells the others the tid
	// of its newest snapshot; below the oldest of them (the watermark)
	// the log is trimmed and versions are collected. 0 never snapshots: a
	// restarted node processes the whole log again, so the log is never
	// trimmed and no version is ever collected.
	SnapshotEvery int
	// Layout places the key ranges on the nodes.
	Layout Layout
	// CacheSize is how many committed transactions' writes to keys a node
	// does not keep it remembers (paper 004's commit cache: 10 000); 0
	// turns the cache off.
	CacheSize int
	// Versions is how many tids of history the MVCC store keeps for
	// clients: a read as of a tid more than Versions (up to twice as
	// many) before the newest the node has processed fails with
	// ErrTooOld, and the client begins again. Versions as of the
	// watermark (see SnapshotEvery) or later are kept whatever Versions
	// says: a node that restarts from its snapshot asks for them.
	Versions int
	// ReadWait is how long a server holds a read as of a tid it has not
	// applied yet before it answers ErrBehind, so that the client asks
	// another owner rather than wait for one that is catching up. A read
	// far past what the server has processed is answered ErrBehind at
	// once.
	ReadWait time.Duration
	// HoldReads holds every read as of a tid the server has not processed
	// until it has, as paper 004's servers did (§4.3), instead of
	// answering ErrBehind: a restarted node then stalls the clients that
	// ask it until it has caught up. For comparisons.
	HoldReads bool
	// RPCTimeout is how long a server or client waits for an answer
	// before it asks again, elsewhere.
	RPCTimeout time.Duration
	bugs       bugs
}

// DefaultConfig is the lab's Raft timing, one node with no replication,
// the paper's snapshots every 1024 tids and commit cache of 10 000
// transactions, as much history, a read wait of 50 ms and an RPC timeout
// of 300 ms.
func DefaultConfig() Config {
	return Config{RSM: rsm.DefaultConfig(), Layout: DefaultLayout(1, 1), SnapshotEvery: 1024, CacheSize: 10000, Versions: 10000,
		ReadWait: 50 * time.Millisecond, RPCTimeout: 300 * time.Millisecond}
}

// MaxSetting is the longest duration a Config (or a clerk's timeout) may
// set: a day, far past any wait that makes sense, and short enough that no
// timer set from it can overflow the virtual clock.
const MaxSetting = 24 * time.Hour

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	switch {
	case c.RSM.MaxRaftState != -1:
		return fmt.Errorf("logorder: RSM.MaxRaftState %d: must be -1; nodes snapshot their own state and trim the log themselves (SnapshotEvery)", c.RSM.MaxRaftState)
	case c.SnapshotEvery < 0:
		return fmt.Errorf("logorder: SnapshotEvery %d is negative", c.SnapshotEvery)
	case c.CacheSize < 0:
		return fmt.Errorf("logorder: CacheSize %d is negative", c.CacheSize)
	case c.Versions < 1:
		return fmt.Errorf("logorder: Versions %d must be positive", c.Versions)
	case c.ReadWait <= 0:
		return fmt.Errorf("logorder: ReadWait %v must be positive", c.ReadWait)
	case c.ReadWait > MaxSetting:
		return fmt.Errorf("logorder: ReadWait %v is longer than a day (MaxSetting)", c.ReadWait)
	case c.RPCTimeout <= 0:
		return fmt.Errorf("logorder: RPCTimeout %v must be positive", c.RPCTimeout)
	case c.RPCTimeout > MaxSetting:
		return fmt.Errorf("logorder: RPCTimeout %v is longer than a day (MaxSetting)", c.RPCTimeout)
	}
	if err := c.Layout.Validate(); err != nil {
		return err
	}
	return c.RSM.Validate()
}
