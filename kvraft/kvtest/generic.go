package kvtest

import (
	"strconv"
	"strings"
	"time"

	"github.com/replab/replab/sim/simtest"
)

// thinkTime is how long one of nclients workload clients pauses between
// operations: 10 ms on average per five clients, so that all of them
// together offer about five hundred operations a second whatever their
// number (some 6 000 to 7 000 in a test of many clients), and histories
// stay small enough for porcupine to check quickly. At 5 ms, a thousand
// a second, the catalogue's generic tests cost about 1.7 times as much.
func (cfg *Harness) thinkTime(nclients int) time.Duration {
	mean := 10 * time.Millisecond * time.Duration((nclients+4)/5)
	return cfg.World().RandDuration(0, 2*mean)
}

// A process is a client process of the generic test.
type process struct {
	ck       *Client
	j        int    // appends and puts done
	last     string // the value of its own key, when keys are not random
	finished bool
}

// startClient starts client cli doing random appends, puts and gets until
// *stop, either on its own key (checking every Get) or on random keys.
func (cfg *Harness) startClient(cli, nclients int, randomkeys bool, stop *bool) *process {
	p := &process{ck: cfg.MakeClient(cfg.All())}
	var step func()
	next := func() { cfg.World().After(cfg.thinkTime(nclients), step) }
	step = func() {
		if *stop {
			p.finished = true
			return
		}
		key := strconv.Itoa(cli)
		if randomkeys {
			key = strconv.Itoa(cfg.RandInt(nclients))
		}
		nv := "x " + strconv.Itoa(cli) + " " + strconv.Itoa(p.j) + " y"
		switch {
		case cfg.RandInt(1000) < 500:
			p.ck.AppendAsync(key, nv, func() {
				if !randomkeys {
					p.last += nv
				}
				p.j++
				next()
			})
		case randomkeys && cfg.RandInt(1000) < 100:
			// Only with random keys: a put would break the check of
			// a client's own key.
			p.ck.PutAsync(key, nv, func() {
				p.j++
				next()
			})
		default:
			p.ck.GetAsync(key, func(v string) {
				if !randomkeys && v != p.last {
					cfg.t.Fatalf("get wrong value, key %v: %s", key, difference(p.last, v))
				}
				next()
			})
		}
	}
	if randomkeys {
		cfg.World().After(0, step)
	} else {
		p.ck.PutAsync(strconv.Itoa(cli), "", step)
	}
	return p
}

// startPartitioner repartitions the servers at random every election
// timeout or so until *stop.
func (cfg *Harness) startPartitioner(stop *bool) {
	var part func()
	part = func() {
		if *stop {
			return
		}
		var groups [2][]int
		for i := range cfg.N() {
			g := cfg.RandInt(2)
			groups[g] = append(groups[g], i)
		}
		cfg.Partition(groups[0], groups[1])
		cfg.World().After(ElectionTimeout+time.Duration(cfg.RandInt(200))*time.Millisecond, part)
	}
	cfg.World().After(time.Second, part)
}

// checkClntAppends checks that v holds client clnt's count appends, each
// once and in order. A value that passes takes one scan; one that does not
// is searched element by element, as the lab's test does, to say what is
// wrong.
func checkClntAppends(t simtest.T, clnt int, v string, count int) {
	t.Helper()
	if appendsInOrder(clnt, v, count) {
		return
	}
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

// appendsInOrder reports whether the elements "x clnt j y" with j < count
// appear in v exactly once each, in the order of j: in one scan of v,
// where searching for each element would take count.
func appendsInOrder(clnt int, v string, count int) bool {
	prefix := "x " + strconv.Itoa(clnt) + " "
	next := 0 // the element expected next
	for {
		i := strings.Index(v, prefix)
		if i < 0 {
			return next == count
		}
		v = v[i+len(prefix):]
		d := 0
		for d < len(v) && '0' <= v[d] && v[d] <= '9' {
			d++
		}
		j, err := strconv.Atoi(v[:d])
		if d == 0 || !strings.HasPrefix(v[d:], " y") || err != nil || v[:d] != strconv.Itoa(j) {
			continue // not an element as clients write them; one may start inside it
		}
		v = v[d+len(" y"):]
		switch {
		case j >= count:
		case j == next:
			next++
		default:
			return false // a duplicate, or one out of order or missing
		}
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
func genericTest(t simtest.T, seed int64, svc Service, nclients, nservers int, unreliable, crash, partitions bool, maxraftstate int, randomkeys bool) *Harness {
	cfg := New(t, seed, nservers, unreliable, maxraftstate, svc)
	ck := cfg.MakeClient(cfg.All())
	for range 3 {
		stop := false
		clients := make([]*process, nclients)
		for i := range clients {
			clients[i] = cfg.startClient(i, nclients, randomkeys, &stop)
		}
		if partitions {
			cfg.startPartitioner(&stop)
		}
		cfg.Sleep(5 * time.Second)
		stop = true // tell the clients and the partitioner to quit
		if partitions {
			cfg.ConnectAll()
			cfg.Sleep(ElectionTimeout)
		}
		if crash {
			for i := range nservers {
				cfg.Shutdown(i)
			}
			cfg.Sleep(ElectionTimeout)
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
		if !cfg.World().RunUntil(finished, OpLimit) {
			t.Fatalf("clients did not finish their last operations in %v", OpLimit)
		}
		for i, c := range clients {
			v := ck.Get(strconv.Itoa(i))
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
	cfg.CheckLinearizable()
	return cfg
}

// generic returns the body of genericTest with the given parameters.
func generic(nclients, nservers int, unreliable, crash, partitions bool, maxraftstate int, randomkeys bool) Body {
	return func(t simtest.T, seed int64, svc Service) *Harness {
		return genericTest(t, seed, svc, nclients, nservers, unreliable, crash, partitions, maxraftstate, randomkeys)
	}
}

// speed returns the body of speedTest with the given maxraftstate.
func speed(maxraftstate int) Body {
	return func(t simtest.T, seed int64, svc Service) *Harness { return speedTest(t, seed, svc, maxraftstate) }
}

// speedTest submits numOps appends one after another from one clerk and
// checks that they complete at least svc.OpsPerHeartbeat per heartbeat.
func speedTest(t simtest.T, seed int64, svc Service, maxraftstate int) *Harness {
	const numOps = 1000
	cfg := New(t, seed, 3, false, maxraftstate, svc)
	ck := cfg.MakeClient(cfg.All())
	ck.Put("x", "") // wait for a leader
	start := cfg.World().Now()
	for i := range numOps {
		ck.Append("x", "x 0 "+strconv.Itoa(i)+" y")
	}
	dur := cfg.World().Now() - start
	checkClntAppends(t, 0, ck.Get("x"), numOps)
	perHeartbeat := float64(numOps) * float64(svc.Heartbeat) / float64(dur)
	t.Logf("%d sequential appends in %v of virtual time: %.1f per %v heartbeat, %v per operation",
		numOps, dur, perHeartbeat, svc.Heartbeat, dur/numOps)
	if perHeartbeat < svc.OpsPerHeartbeat {
		t.Fatalf("operations completed too slowly: %.1f per heartbeat, want at least %v", perHeartbeat, svc.OpsPerHeartbeat)
	}
	cfg.CheckLinearizable()
	return cfg
}
