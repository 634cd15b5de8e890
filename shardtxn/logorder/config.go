package logorder

import (
	"fmt"
	"time"

	"github.com/replab/replab/rsm"
)

// Config configures the servers of a deployment.
type Config struct {
	// RSM is the log's configuration: Raft timing and snapshots
	// (MaxRaftState; a snapshot holds the log position and the MVCC
	// state).
	RSM rsm.Config
	// Layout places the key ranges on the nodes.
	Layout Layout
	// CacheSize is how many committed transactions' writes to keys a node
	// does not keep it remembers (paper 004's commit cache: 10 000); 0
	// turns the cache off.
	CacheSize int
	// Versions is how many tids of history the MVCC store keeps: a read
	// as of a tid more than Versions before the newest the node has
	// processed fails with ErrTooOld, and the client begins again.
	Versions int
	// ReadWait is how long a server holds a read as of a tid it has not
	// applied yet before it answers ErrBehind, so that the client asks
	// another owner rather than wait for one that is catching up.
	ReadWait time.Duration
	// RPCTimeout is how long a server or client waits for an answer
	// before it asks again, elsewhere.
	RPCTimeout time.Duration
	bugs       bugs
}

// DefaultConfig is the lab's Raft timing, no snapshots, one node with no
// replication, the paper's commit cache of 10 000 transactions and
// history, a read wait of 50 ms and an RPC timeout of 300 ms.
func DefaultConfig() Config {
	return Config{RSM: rsm.DefaultConfig(), Layout: DefaultLayout(1, 1), CacheSize: 10000, Versions: 10000,
		ReadWait: 50 * time.Millisecond, RPCTimeout: 300 * time.Millisecond}
}

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	switch {
	case c.CacheSize < 0:
		return fmt.Errorf("logorder: CacheSize %d is negative", c.CacheSize)
	case c.Versions < 1:
		return fmt.Errorf("logorder: Versions %d must be positive", c.Versions)
	case c.ReadWait <= 0:
		return fmt.Errorf("logorder: ReadWait %v must be positive", c.ReadWait)
	case c.RPCTimeout <= 0:
		return fmt.Errorf("logorder: RPCTimeout %v must be positive", c.RPCTimeout)
	}
	if err := c.Layout.Validate(); err != nil {
		return err
	}
	return c.RSM.Validate()
}
