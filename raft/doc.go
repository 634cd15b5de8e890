// Package raft is Raft, written from scratch as a sans-IO node on the
// simulated world and network: leader election with PreVote and
// CheckQuorum, log replication that sends as soon as a command arrives and
// batches whatever piles up behind an AppendEntries in flight, fast log
// backtracking, persistence, snapshots with InstallSnapshot, and
// linearizable reads by ReadIndex or by leader lease.
//
// The API has the 6.5840 lab's shape: Make, Start, GetState, Snapshot,
// Kill, and ApplyMsg values delivered in log order through an apply
// callback, the in-world stand-in for applyCh. Everything a node does
// happens in the world's events: it never blocks and starts no goroutines.
//
// # The lease argument
//
// LeaseRead lets a leader answer a read from its own state, without a
// round of messages, while it holds a lease. This is safe only if no other
// node can become leader while the lease lasts, and that rests on promises
// the followers keep. The setting: CheckQuorum is on, and every host's
// clock runs at between 1−d and 1+d times the rate of true time, where d is
// Config.LeaseDrift.
//
// The follower's promise. A node that accepts a message from the leader of
// its term (an AppendEntries or InstallSnapshot, whatever its outcome)
// notes the time a on its own clock. Until a + ElectionMin on that clock,
// it may be inside a lease it granted, and it does none of these:
//
//   - grant a vote or a pre-vote in a higher term (RequestVote refuses
//     without adopting the term);
//   - time out: its election timer is reset, to at least ElectionMin, by
//     every message from the leader;
//   - finish an election it started before hearing the leader: hearing the
//     leader ends any pre-election or election under way, so replies still
//     in flight are ignored;
//   - turn a won pre-election into an election (bumping its term and voting
//     for itself).
//
// A node that restarts has forgotten when it last heard a leader, so it
// counts its start as hearing one. A leader keeps the same promise for as
// long as it leads.
//
// The leader's lease. Let s be the time, on the leader's clock, at which it
// sent a message that a majority (counting itself) has answered, or a later
// one. It may serve reads until s + LeaseDuration on its own clock, where
// LeaseDuration = ElectionMin·(1−d)/(1+d), provided it has committed an
// entry of its term (so its commit index is the latest) and the read is
// served once that index is applied.
//
// Why it holds. A new leader needs votes from a majority, and every
// majority includes a node F that answered the leader's message sent at s.
// F received it no earlier than s (in true time), and keeps its promise for
// ElectionMin on its clock: at least ElectionMin/(1+d) of true time. The
// lease lasts LeaseDuration on the leader's clock: at most
// LeaseDuration/(1−d) = ElectionMin/(1+d) of true time. So F neither votes
// for another node nor for itself before the lease has ended, and no other
// node can lead until then. With clocks drifting more than d, the argument
// fails, and the tests show lease reads going stale.
package raft
