package testbed

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/labrpc"
)

// DrawNetwork draws a swarm seed's network: labrpc's default parameters
// with a latency of 50 µs–10 ms, jitter of up to twice it, request and
// reply losses of up to 20 % each, a reordering probability, a bandwidth
// bound of 100 KB/s–1 GB/s (on 30 % of seeds) and duplication of up to 20
// % of requests (on 30 %); unreliable (losses and short delays in force)
// on 60 % of seeds.
func DrawNetwork(d *Draw) Network {
	p := labrpc.DefaultParams()
	p.Latency = d.Duration("latency", 50*time.Microsecond, 10*time.Millisecond)
	p.Jitter = time.Duration(d.Float("jitter/latency", 0, 2) * float64(p.Latency))
	p.RequestLoss, p.ReplyLoss = d.Float("request loss", 0, 0.2), d.Float("reply loss", 0, 0.2)
	p.ReorderProb = d.Float("reorder probability", 0, 1)
	if d.Chance("bandwidth bound", 0.3) {
		p.Bandwidth = int64(d.LogInt("bandwidth bytes/s", 100<<10, 1<<30))
	}
	if d.Chance("duplication", 0.3) {
		p.Duplicate = d.Float("duplicate", 0, 0.2)
	}
	return Network{Params: &p, Modes: chaos.Modes{Unreliable: d.Chance("unreliable", 0.6)}}
}

// DrawLAN draws a swarm seed's network as a LAN: labrpc's default
// parameters with a latency of 50 µs–1 ms, jitter of up to jitter times
// the latency, and reliable (no losses or short delays in force), for a
// seed whose faults aim at moments tens of milliseconds wide, which a
// lossy or slow network blurs.
func DrawLAN(d *Draw, jitter float64) Network {
	p := labrpc.DefaultParams()
	p.Latency = d.Duration("latency", 50*time.Microsecond, time.Millisecond)
	p.Jitter = time.Duration(d.Float("jitter/latency", 0, jitter) * float64(p.Latency))
	d.Note("unreliable", "false (a LAN)")
	return Network{Params: &p}
}

// LongestWay is the longest a message takes on n's network when no fault
// is in force (latency and jitter, and the short delays of an unreliable
// network), bandwidth aside.
func (n Network) LongestWay() time.Duration {
	p := labrpc.DefaultParams()
	if n.Params != nil {
		p = *n.Params
	}
	way := p.Latency + p.Jitter
	if n.Modes.Unreliable {
		way += p.ShortDelay
	}
	return way
}

// DrawFaults draws a swarm seed's nemesis on hosts servers over length:
// none on 15 % of seeds; else bursts (Bursts) of random faults, each kind
// weighed 0–3 (chaos.DefaultWeights if all drew 0), one every 20 ms–2 s on
// average, each burst 1–20 s long and followed by a heal and a calm of
// progress, in which progress is checked; the network's modes at the
// start come back at every heal.
func DrawFaults(d *Draw, hosts int, length, progress time.Duration, modes chaos.Modes) (Nemesis, error) {
	if d.Chance("no faults", 0.15) {
		return Nemesis{}, nil
	}
	w := chaos.Weights{}
	for _, f := range []*float64{&w.Partition, &w.Bridge, &w.Isolate, &w.Cut, &w.Kill, &w.Restart, &w.Heal, &w.Rejoin, &w.Uncut, &w.Unreliable, &w.Reordering, &w.LongDelays} {
		*f = float64(d.Rand().IntN(4))
	}
	if w == (chaos.Weights{}) {
		w = chaos.DefaultWeights()
	}
	d.Note("fault weights", fmt.Sprintf("%+v", w))
	return Bursts{
		Hosts:  hosts,
		Faults: chaos.NemesisConfig{Interval: d.Duration("fault interval", 20*time.Millisecond, 2*time.Second), Weights: w},
		Burst:  d.Duration("burst", time.Second, 20*time.Second),
		Calm:   progress, Length: length, Modes: modes,
	}.Generate(d.Rand())
}

// DrawLength draws a swarm seed's run length: from [lo, mid], or, with
// probability long, from [mid, hi] (a long run, up to a paper's length),
// logarithmically within each, as Duration draws. Both draws are named
// "length" and a "long" chance between them, so a seed prints the one it
// ran.
func DrawLength(d *Draw, lo, mid, hi time.Duration, long float64) time.Duration {
	length := d.Duration("length", lo, mid)
	if d.Chance("long", long) {
		length = d.Duration("length", mid, hi)
	}
	return length
}
