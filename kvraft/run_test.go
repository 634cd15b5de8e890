package kvraft_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/simtest"
)

// A scenario is one test of the catalogue: it builds a service with the
// given options on a world for seed, runs, and checks through t.
type scenario func(t simtest.T, seed int64, opts kvraft.Options) *config

// defaultSeeds are the seeds every test runs by default.
var defaultSeeds = []int64{1, 2}

// runScenario runs sc as a test over the default seeds (or -seed).
func runScenario(t *testing.T, sc scenario) {
	simtest.Run(t, defaultSeeds, func(t *testing.T, seed int64) simtest.Result {
		return sc(t, seed, kvraft.DefaultOptions()).result()
	})
}

// thinkTime is how long one of nclients workload clients pauses between
// operations: 5 ms on average per five clients, so that all of them
// together offer about a thousand operations a second whatever their
// number, and histories stay small enough for porcupine to check quickly.
func (cfg *config) thinkTime(nclients int) time.Duration {
	mean := 5 * time.Millisecond * time.Duration((nclients+4)/5)
	return cfg.w.RandDuration(0, 2*mean)
}

// A process is a client process of the generic test.
type process struct {
	ck       *clerk
	j        int    // appends and puts done
	last     string // the value of its own key, when keys are not random
	finished bool
}

// startClient starts client cli doing random appends, puts and gets until
// *stop, either on its own key (checking every Get) or on random keys.
func (cfg *config) startClient(cli, nclients int, randomkeys bool, stop *bool) *process {
	p := &process{ck: cfg.makeClient(cfg.All())}
	var step func()
	next := func() { cfg.w.After(cfg.thinkTime(nclients), step) }
	step = func() {
		if *stop {
			p.finished = true
			return
		}
		key := strconv.Itoa(cli)
		if randomkeys {
			key = strconv.Itoa(cfg.randInt(nclients))
		}
		nv := "x " + strconv.Itoa(cli) + " " + strconv.Itoa(p.j) + " y"
		switch {
		case cfg.randInt(1000) < 500:
			p.ck.Append(key, nv, func() {
				if !randomkeys {
					p.last += nv
				}
				p.j++
				next()
			})
		case randomkeys && cfg.randInt(1000) < 100:
			// Only with random keys: a put would break the check of
			// a client's own key.
			p.ck.Put(key, nv, func() {
				p.j++
				next()
			})
		default:
			p.ck.getAsync(key, func(v string) {
				if !randomkeys && v != p.last {
					cfg.t.Fatalf("get wrong value, key %v, wanted:\n%v\n, got\n%v", key, p.last, v)
				}
				next()
			})
		}
	}
	if randomkeys {
		cfg.w.After(0, step)
	} else {
		p.ck.Put(strconv.Itoa(cli), "", step)
	}
	return p
}

// startPartitioner repartitions the servers at random every election
// timeout or so until *stop.
func (cfg *config) startPartitioner(stop *bool) {
	var part func()
	part = func() {
		if *stop {
			return
		}
		var groups [2][]int
		for i := range cfg.n {
			g := cfg.randInt(2)
			groups[g] = append(groups[g], i)
		}
		cfg.Partition(groups[0], groups[1])
		cfg.w.After(electionTimeout+time.Duration(cfg.randInt(200))*time.Millisecond, part)
	}
	cfg.w.After(time.Second, part)
}

// checkClntAppends checks that v holds client clnt's count appends, each
// once and in order.
func checkClntAppends(t simtest.T, clnt int, v string, count int) {
	t.Helper()
	lastoff := -1
	for j := range count {
		wanted := "x " + strconv.Itoa(clnt) + " " + strconv.Itoa(j) + " y"
		off := strings.Index(v, wanted)
		if off < 0 {
			t.Fatalf("%v missing element %v in Append result %v", clnt, wanted, v)
		}
		if off1 := strings.LastIndex(v, wanted); off1 != off {
			t.Fatalf("duplicate element %v in Append result", wanted)
		}
		if off <= lastoff {
			t.Fatalf("wrong order for element %v in Append result", wanted)
		}
		lastoff = off
	}
}

// checkConcurrentAppends checks that v holds each client's appends, each
// once and in the client's order.
func checkConcurrentAppends(t simtest.T, v string, counts []int) {
	t.Helper()
	for i, n := range counts {
		checkClntAppends(t, i, v, n)
	}
}

// genericTest is the lab's generic test: nclients clients run random
// operations for three rounds of five seconds, with optional unreliable
// network, crashes of every server between rounds, random partitions and
// snapshots; then the history is checked with porcupine.
func genericTest(t simtest.T, seed int64, opts kvraft.Options, nclients, nservers int, unreliable, crash, partitions bool, maxraftstate int, randomkeys bool) *config {
	cfg := makeConfig(t, seed, nservers, unreliable, maxraftstate, opts)
	ck := cfg.makeClient(cfg.All())
	for range 3 {
		stop := false
		clients := make([]*process, nclients)
		for i := range clients {
			clients[i] = cfg.startClient(i, nclients, randomkeys, &stop)
		}
		if partitions {
			cfg.startPartitioner(&stop)
		}
		cfg.sleep(5 * time.Second)
		stop = true // tell the clients and the partitioner to quit
		if partitions {
			cfg.ConnectAll()
			cfg.sleep(electionTimeout)
		}
		if crash {
			for i := range nservers {
				cfg.Shutdown(i)
			}
			cfg.sleep(electionTimeout)
			for i := range nservers {
				cfg.StartServer(i)
			}
			cfg.ConnectAll()
		}
		finished := func() bool {
			for _, c := range clients {
				if !c.finished {
					return false
				}
			}
			return true
		}
		if !cfg.w.RunUntil(finished, opLimit) {
			t.Fatalf("clients did not finish their last operations in %v", opLimit)
		}
		for i, c := range clients {
			v := ck.get(strconv.Itoa(i))
			if !randomkeys {
				checkClntAppends(t, i, v, c.j)
			}
		}
		if maxraftstate > 0 {
			// The servers have processed every request and had time
			// to snapshot.
			if sz := cfg.LogSize(); sz > 8*maxraftstate {
				t.Fatalf("logs were not trimmed (%v > 8*%v)", sz, maxraftstate)
			}
		}
		if maxraftstate < 0 {
			if ssz := cfg.SnapshotSize(); ssz > 0 {
				t.Fatalf("snapshot too large (%v), should not be used when maxraftstate = %d", ssz, maxraftstate)
			}
		}
	}
	cfg.checkLinearizable()
	return cfg
}

// generic returns the scenario of genericTest with the given parameters.
func generic(nclients, nservers int, unreliable, crash, partitions bool, maxraftstate int, randomkeys bool) scenario {
	return func(t simtest.T, seed int64, opts kvraft.Options) *config {
		return genericTest(t, seed, opts, nclients, nservers, unreliable, crash, partitions, maxraftstate, randomkeys)
	}
}

// speedTest submits numOps appends one after another from one clerk and
// checks that they complete at least 30 per heartbeat.
func speedTest(t simtest.T, seed int64, opts kvraft.Options, maxraftstate int) *config {
	const numOps = 1000
	cfg := makeConfig(t, seed, 3, false, maxraftstate, opts)
	ck := cfg.makeClient(cfg.All())
	ck.put("x", "") // wait for a leader
	start := cfg.w.Now()
	for i := range numOps {
		ck.append("x", "x 0 "+strconv.Itoa(i)+" y")
	}
	dur := cfg.w.Now() - start
	checkClntAppends(t, 0, ck.get("x"), numOps)
	heartbeat := opts.Raft.Heartbeat
	perHeartbeat := float64(numOps) * float64(heartbeat) / float64(dur)
	t.Logf("%d sequential appends in %v of virtual time: %.1f per %v heartbeat, %v per operation",
		numOps, dur, perHeartbeat, heartbeat, dur/numOps)
	if perHeartbeat < 30 {
		t.Fatalf("operations completed too slowly: %.1f per heartbeat, want at least 30", perHeartbeat)
	}
	cfg.checkLinearizable()
	return cfg
}
