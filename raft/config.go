package raft

import (
	"fmt"
	"math"
	"time"
)

// Config holds a node's timing and options. LabConfig and PaperConfig are
// the named profiles.
type Config struct {
	// Heartbeat is how often a leader sends AppendEntries to each peer
	// when it has nothing else to send.
	Heartbeat time.Duration
	// A follower that hears from no leader for a random time in
	// [ElectionMin, ElectionMax] starts an election.
	ElectionMin, ElectionMax time.Duration
	// RPCTimeout, if positive, gives up on an RPC with no answer after
	// that long (the network may still fail it sooner).
	RPCTimeout time.Duration
	// PreVote makes a node ask whether it could win before it bumps its
	// term, so a node that rejoins after a partition does not depose a
	// healthy leader.
	PreVote bool
	// CheckQuorum makes a leader step down when it has not heard from a
	// majority for ElectionMax, and makes nodes that hear from a leader
	// ignore votes for ElectionMin (the leader's lease).
	CheckQuorum bool
	// MaxBatch bounds the entries in one AppendEntries; 0 means no bound.
	MaxBatch int
	// MaxBatchBytes bounds the persisted size of the entries in one
	// AppendEntries (one entry larger than it still goes alone); 0 means
	// no bound. Without a bound, a follower that comes back far behind is
	// sent its whole gap in one message, which on a network with a
	// bandwidth holds the leader's heartbeats to the others behind it
	// until they time out and elect another leader, which does the same.
	MaxBatchBytes int
	// Bandwidth, if positive, is how many bytes a second the node's link
	// sends (as labrpc.Params.Bandwidth bounds it). A leader has at most
	// one batch in flight to each peer, and its heartbeats leave behind
	// them: with Bandwidth set, a batch is bounded further (below
	// MaxBatchBytes) to an equal share, among the peers, of what the link
	// sends in half a heartbeat, so that the batches never hold the
	// heartbeats back longer than that, however slow the link (one entry
	// larger than the share still goes alone). 0 means no such bound.
	Bandwidth int64
	// HeartbeatOnly holds new entries back until the next heartbeat
	// instead of sending them when Start is called, as many first
	// implementations of the lab do (for comparisons; it is slow).
	HeartbeatOnly bool
	// LeaseDrift is the largest clock-rate error LeaseRead assumes between
	// any host's clock and true time: 0.05 means every clock runs between
	// 0.95 and 1.05 times as fast as virtual time. Leases are shortened to
	// stay safe within that bound (see LeaseDuration); beyond it, a lease
	// read can return stale data.
	LeaseDrift float64
	// OwnSnapshots is for services whose nodes' snapshots are their own
	// and cannot stand for another's (logorder's, each of its own keys),
	// and which trim the log only below what every node's log holds: a
	// leader whose next index for a peer has fallen to its log's base
	// asks the peer at the base before it sends its snapshot, and sends it
	// only if the peer refuses (a leader's match is a lower bound, and a
	// new leader's starts at 0). Without it, swarm-logorder's seed 1440
	// restarted a node from the log's leader's snapshot.
	OwnSnapshots bool
	// Codec, if set, persists the service's commands of types other than
	// int, string and []byte (which have built-in forms); without it such
	// commands go through encoding/gob and must be registered with it.
	Codec CommandCodec
	// Group, if set, names the node's group where the nodes of several
	// groups share a host: the node shows its state there as "group/raft"
	// instead of "raft" (see InspectAs).
	Group string

	bugs bugs // planted bugs; only the package's tests set them
}

// LabConfig is the 6.5840 lab's profile: heartbeats every 100 ms, elections
// after 300-600 ms of silence, PreVote and CheckQuorum on; at most 1 MiB of
// entries in one AppendEntries (etcd's default).
func LabConfig() Config {
	return Config{
		Heartbeat:   100 * time.Millisecond,
		ElectionMin: 300 * time.Millisecond,
		ElectionMax: 600 * time.Millisecond,
		PreVote:     true,
		CheckQuorum: true,
		LeaseDrift:  0.05,

		MaxBatchBytes: 1 << 20,
	}
}

// PaperConfig is the Raft-KV-with-ChaosMonkey paper's profile: heartbeats
// every 400 ms, elections after 500-1000 ms, RPCs given up after 2 s, at
// most 1 MiB of entries in one AppendEntries.
func PaperConfig() Config {
	return Config{
		Heartbeat:   400 * time.Millisecond,
		ElectionMin: 500 * time.Millisecond,
		ElectionMax: 1000 * time.Millisecond,
		RPCTimeout:  2000 * time.Millisecond,
		PreVote:     true,
		CheckQuorum: true,
		LeaseDrift:  0.05,

		MaxBatchBytes: 1 << 20,
	}
}

// batchBytes returns the most bytes of entries one AppendEntries to one
// of peers others carries (see MaxBatchBytes and Bandwidth), 0 for no
// bound.
func (c Config) batchBytes(others int) int {
	limit := c.MaxBatchBytes
	if c.Bandwidth <= 0 || others <= 0 {
		return limit
	}
	share := int(max(1, min(float64(c.Bandwidth)*c.Heartbeat.Seconds()/2/float64(others), math.MaxInt32)))
	if limit == 0 {
		return share
	}
	return min(limit, share)
}

// LeaseDuration is how long, on the leader's clock, a lease lasts from the
// sending of a message a majority acknowledged. A follower that
// acknowledges refuses votes for ElectionMin on its own clock; with every
// clock within LeaseDrift of true time, that is at least
// ElectionMin/(1+LeaseDrift) of true time, which the leader's clock
// measures as at least ElectionMin*(1-LeaseDrift)/(1+LeaseDrift).
func (c Config) LeaseDuration() time.Duration {
	return time.Duration(float64(c.ElectionMin) * (1 - c.LeaseDrift) / (1 + c.LeaseDrift))
}

// MaxSetting is the longest duration a Config may set: a day, far past
// any timeout that makes sense, and short enough that no timer set from
// it can overflow the virtual clock.
const MaxSetting = 24 * time.Hour

// Validate returns an error naming the first setting that cannot work.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Heartbeat", c.Heartbeat}, {"ElectionMin", c.ElectionMin}, {"ElectionMax", c.ElectionMax}, {"RPCTimeout", c.RPCTimeout}} {
		if d.v > MaxSetting {
			return fmt.Errorf("raft: %s %v is longer than a day (MaxSetting)", d.name, d.v)
		}
	}
	if c.Heartbeat <= 0 {
		return fmt.Errorf("raft: Heartbeat %v is not positive", c.Heartbeat)
	}
	if c.ElectionMin <= c.Heartbeat {
		return fmt.Errorf("raft: ElectionMin %v must exceed Heartbeat %v", c.ElectionMin, c.Heartbeat)
	}
	if c.ElectionMax < c.ElectionMin {
		return fmt.Errorf("raft: ElectionMax %v is below ElectionMin %v", c.ElectionMax, c.ElectionMin)
	}
	if c.RPCTimeout < 0 {
		return fmt.Errorf("raft: RPCTimeout %v is negative", c.RPCTimeout)
	}
	if c.MaxBatch < 0 {
		return fmt.Errorf("raft: MaxBatch %d is negative", c.MaxBatch)
	}
	if c.MaxBatchBytes < 0 {
		return fmt.Errorf("raft: MaxBatchBytes %d is negative", c.MaxBatchBytes)
	}
	if c.Bandwidth < 0 {
		return fmt.Errorf("raft: Bandwidth %d bytes/s is negative", c.Bandwidth)
	}
	if !(c.LeaseDrift >= 0 && c.LeaseDrift < 1) {
		return fmt.Errorf("raft: LeaseDrift %v is not in [0, 1)", c.LeaseDrift)
	}
	return nil
}

// A CommandCodec turns a service's commands into bytes for the persisted
// log, and back. Encoding must be deterministic.
type CommandCodec interface {
	AppendCommand(b []byte, cmd any) ([]byte, error)
	DecodeCommand(b []byte) (any, error)
}
