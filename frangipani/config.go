package frangipani

import (
	"fmt"
	"time"

	"github.com/replab/replab/rsm"
)

// Config configures a frangipani deployment: its lock servers and its
// clerks alike, since the clerk's lease is derived from the servers'.
type Config struct {
	// RSM is the lock service core's configuration: Raft timing,
	// snapshots (MaxRaftState) and read mode.
	RSM rsm.Config
	// Lease is how long, on a lock server's clock, a grant or renewal
	// lasts from when the server applies it: after that a shared lock
	// whose holder has not renewed may be given to a waiting client.
	Lease time.Duration
	// Drift is the largest clock-rate error assumed for any host, server
	// or client: 0.05 means every clock runs between 0.95 and 1.05 times
	// as fast as virtual time. The clerk's lease is shortened to stay
	// safe within it (see ClientLease).
	Drift float64
	// BreakAfter is how long, on a lock server's clock, an exclusive
	// lock's holder may stay silent (no renewal, no release) while another
	// client waits before the server breaks the lock. The holder's writes
	// not yet flushed are lost then: see the package doc.
	BreakAfter time.Duration
	// RenewEvery is how often a clerk renews the leases it holds (the
	// report: every 100 ms).
	RenewEvery time.Duration
	// Tick is how often a lock service leader looks for leases that ran
	// out while another client waits.
	Tick time.Duration
	// RPCTimeout is how long a clerk waits for a lock server's answer
	// before it tries the next server: longer than RenewEvery, which a
	// leader may hold a clerk's watch for. An answer that comes later, to
	// a try that timed out, is still taken if it is the first.
	RPCTimeout time.Duration
	// CacheHit is the virtual time an operation served from the cache
	// takes: the clerk answers it that much later, so that a client that
	// loops on its cache moves the clock on. The default, 1 µs, rounds up
	// the 0.2–0.7 µs of wall time BenchmarkCacheHit measures for a cache
	// hit, world included (the report measured 3.9 µs per operation).
	CacheHit time.Duration
	// Linger is how long a clerk keeps a lock that another client waits
	// for after it last used it, in case its next operation needs it too:
	// a client working on a key back to back serves a burst from its
	// cache each time the lock comes round, one that pauses or moves to
	// another key gives the lock up at once.
	Linger time.Duration
	// MaxHold is the longest a clerk goes on serving a lock after it
	// learns that another client waits for it, however busy it is with it.
	MaxHold time.Duration
	// LocksOnly has a clerk take the key's lock for every operation, as
	// the report's clerk does: it sends no operation with its acquires for
	// the lock service to perform instead (see AcquireArgs).
	LocksOnly bool
	// MaxValue is the largest value, in bytes, a key may hold; a write
	// that would make it larger is refused.
	MaxValue int
	bugs     bugs
}

// DefaultConfig is a 1 s lease with 5 % clock drift, renewed every
// 100 ms, on the lab's Raft timing with no snapshots; a lock another client
// waits for is kept 50 µs past its last use, 1 ms at most.
func DefaultConfig() Config {
	return Config{
		RSM:        rsm.DefaultConfig(),
		Lease:      time.Second,
		Drift:      0.05,
		BreakAfter: 5 * time.Second,
		RenewEvery: 100 * time.Millisecond,
		Tick:       20 * time.Millisecond,
		RPCTimeout: 300 * time.Millisecond,
		CacheHit:   time.Microsecond,
		Linger:     50 * time.Microsecond,
		MaxHold:    time.Millisecond,
		MaxValue:   1 << 20,
	}
}

// ClientLease is how long, on a clerk's clock, it may serve a key from
// its cache after sending the request that granted or renewed the key's
// lock: Lease·(1−Drift)/(1+Drift). The derivation is in the package doc.
func (c Config) ClientLease() time.Duration {
	if c.bugs.noDriftMargin {
		return c.Lease
	}
	return time.Duration(float64(c.Lease) * (1 - c.Drift) / (1 + c.Drift))
}

// MaxSetting is the longest duration a Config may set: a day, far past
// any lease or timeout that makes sense, and short enough that no timer
// the clerks and lock servers set from it can overflow the virtual clock.
const MaxSetting = 24 * time.Hour

// MaxKey is the longest key, in bytes, that a clerk or a lock server
// accepts.
const MaxKey = 1 << 10

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Lease", c.Lease}, {"BreakAfter", c.BreakAfter}, {"RenewEvery", c.RenewEvery}, {"Tick", c.Tick}, {"RPCTimeout", c.RPCTimeout}, {"CacheHit", c.CacheHit}, {"Linger", c.Linger}, {"MaxHold", c.MaxHold}} {
		switch {
		case d.v <= 0:
			return fmt.Errorf("frangipani: %s %v must be positive", d.name, d.v)
		case d.v > MaxSetting:
			return fmt.Errorf("frangipani: %s %v is longer than a day (MaxSetting)", d.name, d.v)
		}
	}
	switch {
	case !(c.Drift >= 0 && c.Drift < 1):
		return fmt.Errorf("frangipani: Drift %v is not in [0, 1)", c.Drift)
	case c.RenewEvery >= c.ClientLease():
		return fmt.Errorf("frangipani: RenewEvery %v must be shorter than the clerk's lease %v (Lease %v with Drift %v)", c.RenewEvery, c.ClientLease(), c.Lease, c.Drift)
	case c.RPCTimeout <= c.RenewEvery:
		return fmt.Errorf("frangipani: RPCTimeout %v must be longer than RenewEvery %v", c.RPCTimeout, c.RenewEvery)
	case c.MaxHold < c.Linger:
		return fmt.Errorf("frangipani: MaxHold %v is shorter than Linger %v", c.MaxHold, c.Linger)
	case c.BreakAfter < c.Lease:
		return fmt.Errorf("frangipani: BreakAfter %v is shorter than Lease %v", c.BreakAfter, c.Lease)
	case c.MaxValue <= 0:
		return fmt.Errorf("frangipani: MaxValue %d must be positive", c.MaxValue)
	}
	return c.RSM.Validate()
}
