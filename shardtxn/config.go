package shardtxn

import (
	"fmt"
	"time"

	"github.com/replab/replab/rsm"
)

// Config configures the servers of a shardtxn deployment: coordinators and
// shards alike.
type Config struct {
	// RSM is the service core's configuration: Raft timing, snapshots
	// (MaxRaftState) and read mode.
	RSM rsm.Config
	// LockWait is how long a prepare waits for a locked key, at least:
	// each prepare waits a random time in [LockWait, 2·LockWait), paper
	// 000's randomized lock timeout, so that of two transactions that lock
	// each other out across shards one gives up first and the other goes on.
	LockWait time.Duration
	// TxnTimeout is the age at which the coordinator aborts a transaction
	// still undecided (paper 003: 5 s).
	TxnTimeout time.Duration
	// Tick is how often a coordinator leader looks for such transactions.
	Tick time.Duration
	// RPCTimeout is how long a server waits for another group's answer
	// before it tries the group's next replica.
	RPCTimeout time.Duration
	// OnePhaseReads serves read-only transactions with paper 000's
	// optimisation: each shard returns the values it holds at prepare,
	// taking no locks, and there is no commit phase. Faster, and not
	// strictly serializable (the paper admits stale reads). Off: read locks
	// are held until the decision, like write locks.
	OnePhaseReads bool
	bugs          bugs
}

// DefaultConfig is strict two-phase locking with the lab's Raft timing, no
// snapshots, a lock wait of 20–40 ms and paper 003's 5 s transaction
// timeout.
func DefaultConfig() Config {
	return Config{RSM: rsm.DefaultConfig(), LockWait: 20 * time.Millisecond, TxnTimeout: 5 * time.Second,
		Tick: 100 * time.Millisecond, RPCTimeout: 500 * time.Millisecond}
}

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"LockWait", c.LockWait}, {"TxnTimeout", c.TxnTimeout}, {"Tick", c.Tick}, {"RPCTimeout", c.RPCTimeout}} {
		if d.v <= 0 {
			return fmt.Errorf("shardtxn: %s %v must be positive", d.name, d.v)
		}
	}
	return c.RSM.Validate()
}
