package labrpc

import (
	"fmt"
	"time"
)

// Params is a network's fault and performance model. The defaults are the
// 6.5840 labrpc numbers, plus a small base latency so that virtual time
// means something even on a reliable network.
type Params struct {
	// Latency is the one-way delay of every message; Jitter adds a uniform
	// random 0..Jitter on top, so concurrent messages may be reordered.
	Latency, Jitter time.Duration
	// Bandwidth is how many bytes per second a host can send; messages
	// from one host queue behind each other. Zero means unlimited.
	Bandwidth int64

	// On an unreliable network: a request is dropped with probability
	// RequestLoss after a random delay of up to ShortDelay, and a reply is
	// dropped with probability ReplyLoss.
	RequestLoss, ReplyLoss float64
	ShortDelay             time.Duration

	// With long reordering, a reply is held back with probability
	// ReorderProb for ReorderMin plus a random delay skewed towards zero
	// of up to ReorderSpan.
	ReorderProb             float64
	ReorderMin, ReorderSpan time.Duration

	// A call to a disabled end, a missing server or across a cut link
	// fails after a random delay of up to NoReply, or LongNoReply with
	// long delays on.
	NoReply, LongNoReply time.Duration

	// Duplicate is the probability that a request is delivered twice (the
	// handler runs twice; the caller takes the first reply).
	Duplicate float64

	// CallTimeout, if positive, fails a call that has had no reply after
	// that long, as a real RPC client would.
	CallTimeout time.Duration

	// ServiceTime is the CPU time a host spends on each request it
	// handles and each reply it receives. Messages queue for a host's
	// CPU, so a busy host falls behind and throughput saturates. Zero
	// means processing is free.
	ServiceTime time.Duration
}

// DefaultParams returns the 6.5840 labrpc fault model with a LAN's 250 µs
// one-way latency plus up to 50 µs of jitter, unlimited bandwidth, no
// duplicates and no call timeout.
func DefaultParams() Params {
	return Params{
		Latency:     250 * time.Microsecond,
		Jitter:      50 * time.Microsecond,
		RequestLoss: 0.1,
		ReplyLoss:   0.1,
		ShortDelay:  27 * time.Millisecond,
		ReorderProb: 2.0 / 3.0,
		ReorderMin:  200 * time.Millisecond,
		ReorderSpan: 2000 * time.Millisecond,
		NoReply:     100 * time.Millisecond,
		LongNoReply: 7000 * time.Millisecond,
	}
}

// Validate returns an error naming the first parameter out of range.
func (p Params) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"RequestLoss", p.RequestLoss}, {"ReplyLoss", p.ReplyLoss}, {"ReorderProb", p.ReorderProb}, {"Duplicate", p.Duplicate}} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("labrpc: %s = %v is not a probability in [0,1]", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"Latency", p.Latency}, {"Jitter", p.Jitter}, {"ShortDelay", p.ShortDelay}, {"ReorderMin", p.ReorderMin},
		{"ReorderSpan", p.ReorderSpan}, {"NoReply", p.NoReply}, {"LongNoReply", p.LongNoReply}, {"CallTimeout", p.CallTimeout}, {"ServiceTime", p.ServiceTime}} {
		if f.v < 0 {
			return fmt.Errorf("labrpc: %s = %v is negative", f.name, f.v)
		}
	}
	if p.Bandwidth < 0 {
		return fmt.Errorf("labrpc: Bandwidth = %d bytes/s is negative", p.Bandwidth)
	}
	return nil
}
