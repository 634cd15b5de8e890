package labsim

// The demo's world: its nodes and the run. This is world code, which the
// seed check (TestWorldCodeIsSeedDriven) reads; the command that runs it
// and times it on the wall clock is in demo.go.

import (
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// Pinger is the demo's node: it answers pings and counts them.
type Pinger struct{ got int }

// PingArgs is a ping's payload.
type PingArgs struct {
	From int
	Data []byte
}

// PingReply answers a ping.
type PingReply struct{ Count int }

// Ping counts a ping and answers with the count so far.
func (p *Pinger) Ping(args *PingArgs, reply *PingReply) {
	p.got++
	reply.Count = p.got
}

// pinger is a node as the cluster harness sees it: it never leads, and
// its loops end with its host.
type pinger struct{}

func (pinger) GetState() (int, bool) { return 0, false }
func (pinger) Kill()                 {}

// demoResult is what one demo run produced.
type demoResult struct {
	summary      sim.Summary
	faults       string
	ok, failed   int
	rpcs         int
	bytes        int64
	hosts, alive int
}

// runDemo builds and runs one demo world, cutting its virtual time into
// steps pieces (which gives the same run as one piece) and calling step
// after each.
func runDemo(seed int64, n int, d time.Duration, steps int, trace io.Writer, step func()) (demoResult, error) {
	w := sim.NewWorld(seed)
	w.SetTraceWriter(trace)
	var res demoResult
	// A node is a Pinger server, and a loop per other host that pings it
	// every 20-80 ms until the host dies.
	node := func(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
		host, peers, me := n.Host, n.Peers, n.Me
		for j, end := range peers {
			if j == me {
				continue
			}
			var ping func()
			ping = func() {
				var reply PingReply
				end.Call("Pinger.Ping", &PingArgs{From: me, Data: make([]byte, 64)}, &reply, func(ok bool) {
					if ok {
						res.ok++
					} else {
						res.failed++
					}
				})
				host.After(w.RandDuration(20*time.Millisecond, 80*time.Millisecond), ping)
			}
			host.After(0, ping)
		}
		return pinger{}, []*labrpc.Service{labrpc.MakeService(&Pinger{})}, nil
	}
	c, err := cluster.New(w, cluster.Config{Groups: []cluster.Group{{Name: "ping", Replicas: n, Factory: node}}})
	if err != nil {
		return demoResult{}, err
	}
	net, monkey := c.Net(), c.Monkey()
	if err := monkey.Apply(fault.Fault{Kind: fault.Unreliable, On: true}); err != nil {
		return demoResult{}, err
	}
	if _, err := monkey.StartNemesis(chaos.NemesisConfig{Interval: time.Second, Weights: chaos.DefaultWeights()}); err != nil {
		return demoResult{}, err
	}
	for i := range steps {
		k, m := time.Duration(i), time.Duration(steps)
		w.Run(d*(k+1)/m - d*k/m)
		step()
	}
	res.summary = w.Summary()
	res.faults = monkey.Log().String()
	res.rpcs, res.bytes = net.GetTotalCount(), net.GetTotalBytes()
	res.hosts = n
	for _, a := range monkey.Alive() {
		if a {
			res.alive++
		}
	}
	return res, nil
}
