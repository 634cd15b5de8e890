package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/replab/replab/chaos"
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

// demoResult is what one demo run produced.
type demoResult struct {
	summary      sim.Summary
	faults       string
	ok, failed   int
	rpcs         int
	bytes        int64
	wall         time.Duration
	hosts, alive int
}

func demo(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	seed := fs.Int64("seed", 1, "the world's seed")
	hosts := fs.Int("hosts", 5, "number of hosts")
	duration := fs.Duration("duration", time.Minute, "virtual time to simulate")
	trace := fs.String("trace", "", "write the event trace to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *hosts < 1 {
		return fmt.Errorf("demo: -hosts %d: need at least one host", *hosts)
	}
	if *duration <= 0 {
		return fmt.Errorf("demo: -duration %v: must be positive", *duration)
	}
	traceOut, closeTrace, err := traceFile(*trace)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer closeTrace()

	first, err := runDemo(*seed, *hosts, *duration, traceOut)
	if err != nil {
		return err
	}
	again, err := runDemo(*seed, *hosts, *duration, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "fault log (seed %d):\n%s\n", *seed, first.faults)
	fmt.Fprintf(out, "%d hosts (%d alive at the end), %d RPCs (%d answered, %d failed), %d request bytes\n",
		first.hosts, first.alive, first.rpcs, first.ok, first.failed, first.bytes)
	fmt.Fprintf(out, "%v in %.3fs of wall time\n", first.summary, first.wall.Seconds())
	if again.summary != first.summary {
		return fmt.Errorf("demo: replaying seed %d gave %v: the run is not deterministic", *seed, again.summary)
	}
	fmt.Fprintf(out, "replayed seed %d: same trace hash %016x\n", *seed, again.summary.Hash)
	return nil
}

// runDemo builds and runs one demo world.
func runDemo(seed int64, n int, d time.Duration, trace io.Writer) (demoResult, error) {
	start := time.Now()
	w := sim.NewWorld(seed)
	w.SetTraceWriter(trace)
	hosts, err := w.NewHosts(n, "h")
	if err != nil {
		return demoResult{}, err
	}
	net := labrpc.MakeNetwork(w)
	net.Reliable(false)
	var res demoResult
	ends := make([][]*labrpc.ClientEnd, n)
	for i := range n {
		ends[i] = make([]*labrpc.ClientEnd, n)
		for j := range n {
			name := fmt.Sprintf("%d->%d", i, j)
			ends[i][j] = net.MakeEnd(name, hosts[i])
			net.Connect(name, j)
			net.Enable(name, true)
		}
	}
	// startNode starts host i's node: a Pinger server, and a loop per other
	// host that pings it every 20-80 ms until the host dies.
	startNode := func(i int) {
		srv := labrpc.MakeServer(hosts[i])
		srv.AddService(labrpc.MakeService(&Pinger{}))
		net.AddServer(i, srv)
		for j := range n {
			if j == i {
				continue
			}
			var ping func()
			ping = func() {
				var reply PingReply
				ends[i][j].Call("Pinger.Ping", &PingArgs{From: i, Data: make([]byte, 64)}, &reply, func(ok bool) {
					if ok {
						res.ok++
					} else {
						res.failed++
					}
				})
				hosts[i].After(w.RandDuration(20*time.Millisecond, 80*time.Millisecond), ping)
			}
			hosts[i].After(0, ping)
		}
	}
	for i := range n {
		startNode(i)
	}
	monkey, err := chaos.New(net, hosts, chaos.Hooks{
		Kill: func(i int) { hosts[i].Kill(); net.DeleteServer(i) },
		Restart: func(i int) {
			hosts[i].Restart()
			startNode(i)
		},
	})
	if err != nil {
		return demoResult{}, err
	}
	if _, err := monkey.StartNemesis(chaos.NemesisConfig{Interval: time.Second, Weights: chaos.DefaultWeights()}); err != nil {
		return demoResult{}, err
	}
	w.Run(d)
	res.summary = w.Summary()
	res.faults = monkey.Log().String()
	res.rpcs, res.bytes = net.GetTotalCount(), net.GetTotalBytes()
	res.hosts = n
	for _, a := range monkey.Alive() {
		if a {
			res.alive++
		}
	}
	res.wall = time.Since(start)
	return res, nil
}

// traceFile opens path for an event trace and returns a buffered writer to
// it and a function that flushes and closes it; an empty path gives a nil
// writer (no trace).
func traceFile(path string) (io.Writer, func(), error) {
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("-trace: %w", err)
	}
	buf := bufio.NewWriter(f)
	return buf, func() {
		buf.Flush()
		f.Close()
	}, nil
}
