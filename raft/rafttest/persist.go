package rafttest

import (
	"slices"
	"time"

	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim/simtest"
)

func persist1(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3C): basic persistence")
	cfg.One(11, servers, true)

	// Crash and restart all.
	for i := range servers {
		cfg.Start1(i)
	}
	for i := range servers {
		cfg.Disconnect(i)
		cfg.Connect(i)
	}
	cfg.One(12, servers, true)

	leader1 := cfg.CheckOneLeader()
	cfg.Disconnect(leader1)
	cfg.Start1(leader1)
	cfg.Connect(leader1)
	cfg.One(13, servers, true)

	leader2 := cfg.CheckOneLeader()
	cfg.Disconnect(leader2)
	cfg.One(14, servers-1, true)
	cfg.Start1(leader2)
	cfg.Connect(leader2)
	cfg.Wait(4, servers, -1) // wait for leader2 to join before killing i3

	i3 := (cfg.CheckOneLeader() + 1) % servers
	cfg.Disconnect(i3)
	cfg.One(15, servers-1, true)
	cfg.Start1(i3)
	cfg.Connect(i3)
	cfg.One(16, servers, true)
	return cfg
}

func persist2(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 5
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3C): more persistence")
	index := 1
	for range 5 {
		cfg.One(10+index, servers, true)
		index++
		leader1 := cfg.CheckOneLeader()
		cfg.Disconnect((leader1 + 1) % servers)
		cfg.Disconnect((leader1 + 2) % servers)
		cfg.One(10+index, servers-2, true)
		index++

		cfg.Disconnect((leader1 + 0) % servers)
		cfg.Disconnect((leader1 + 3) % servers)
		cfg.Disconnect((leader1 + 4) % servers)

		cfg.Start1((leader1 + 1) % servers)
		cfg.Start1((leader1 + 2) % servers)
		cfg.Connect((leader1 + 1) % servers)
		cfg.Connect((leader1 + 2) % servers)
		cfg.Sleep(ElectionTimeout)

		cfg.Start1((leader1 + 3) % servers)
		cfg.Connect((leader1 + 3) % servers)
		cfg.One(10+index, servers-2, true)
		index++

		cfg.Connect((leader1 + 4) % servers)
		cfg.Connect((leader1 + 0) % servers)
	}
	cfg.One(1000, servers, true)
	return cfg
}

// persist3 checks partitioned leader and one follower crash, leader
// restarts.
func persist3(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3C): partitioned leader and one follower crash, leader restarts")
	cfg.One(101, 3, true)

	leader := cfg.CheckOneLeader()
	cfg.Disconnect((leader + 2) % servers)
	cfg.One(102, 2, true)

	cfg.Crash1((leader + 0) % servers)
	cfg.Crash1((leader + 1) % servers)
	cfg.Connect((leader + 2) % servers)
	cfg.Start1((leader + 0) % servers)
	cfg.Connect((leader + 0) % servers)
	cfg.One(103, 2, true)

	cfg.Start1((leader + 1) % servers)
	cfg.Connect((leader + 1) % servers)
	cfg.One(104, servers, true)
	return cfg
}

// figure8 crashes leaders at random moments, with and without a quorum,
// so that entries of old terms sit uncommitted on some servers (the
// situation of the Raft paper's Figure 8).
func figure8(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 5
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3C): Figure 8")
	cfg.One(cfg.RandCmd(), 1, true)

	nup := servers
	for range 1000 {
		leader := -1
		for i := range servers {
			if cfg.Node(i) != nil {
				if _, _, ok := cfg.Node(i).Start(cfg.RandCmd()); ok {
					leader = i
				}
			}
		}
		figure8Pause(cfg)
		if leader != -1 {
			cfg.Crash1(leader)
			nup--
		}
		if nup < 3 {
			if s := cfg.RandInt(servers); cfg.Node(s) == nil {
				cfg.Start1(s)
				cfg.Connect(s)
				nup++
			}
		}
	}
	for i := range servers {
		if cfg.Node(i) == nil {
			cfg.Start1(i)
			cfg.Connect(i)
		}
	}
	cfg.One(cfg.RandCmd(), servers, true)
	return cfg
}

func unreliableAgree(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 5
	cfg := New(t, seed, servers, true, false, mk)
	cfg.Begin("Test (3C): unreliable agreement")
	var clients []*Async
	for iters := 1; iters < 50; iters++ {
		for j := range 4 {
			clients = append(clients, cfg.OneAsync(100*iters+j, 1))
		}
		cfg.One(iters, 1, true)
	}
	cfg.SetUnreliable(false)
	cfg.WaitAsync(clients)
	cfg.One(100, servers, true)
	return cfg
}

func figure8Unreliable(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 5
	cfg := New(t, seed, servers, true, false, mk)
	cfg.Begin("Test (3C): Figure 8 (unreliable)")
	cfg.One(cfg.RandInt(10000), 1, true)

	nup := servers
	for iters := range 1000 {
		if iters == 200 {
			cfg.SetLongReordering(true)
		}
		leader := -1
		for i := range servers {
			if _, _, ok := cfg.Node(i).Start(cfg.RandInt(10000)); ok && cfg.Connected(i) {
				leader = i
			}
		}
		figure8Pause(cfg)
		if leader != -1 && cfg.RandInt(1000) < int(ElectionTimeout/time.Millisecond)/2 {
			cfg.Disconnect(leader)
			nup--
		}
		if nup < 3 {
			if s := cfg.RandInt(servers); !cfg.Connected(s) {
				cfg.Connect(s)
				nup++
			}
		}
	}
	for i := range servers {
		if !cfg.Connected(i) {
			cfg.Connect(i)
		}
	}
	cfg.One(cfg.RandInt(10000), servers, true)
	return cfg
}

func reliableChurn(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	return churn(t, seed, mk, false)
}

func unreliableChurn(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	return churn(t, seed, mk, true)
}

// churn runs three clients that keep submitting commands to random servers
// while servers disconnect, crash and restart at random; every command a
// client saw committed must be in the final log.
func churn(t simtest.T, seed int64, mk raftapi.Make, unreliable bool) *Harness {
	servers := 5
	cfg := New(t, seed, servers, unreliable, false, mk)
	if unreliable {
		cfg.Begin("Test (3C): unreliable churn")
	} else {
		cfg.Begin("Test (3C): churn")
	}

	stop := false
	values := make([][]int, 3)
	for me := range 3 {
		var submit func()
		submit = func() {
			if stop {
				return
			}
			x := cfg.RandCmd()
			index := -1
			for i := range servers {
				if rf := cfg.Node(i); rf != nil {
					if index1, _, ok := rf.Start(x); ok {
						index = index1
					}
				}
			}
			if index == -1 {
				cfg.World().After(time.Duration(79+me*17)*time.Millisecond, submit)
				return
			}
			// Watch for the command at 10, 30, 80, 180 and 380 ms.
			waits := []time.Duration{10, 20, 50, 100, 200}
			var watch func(k int)
			watch = func(k int) {
				if nd, cmd := cfg.NCommitted(index); nd > 0 {
					if cmd == x {
						values[me] = append(values[me], x)
					}
					submit()
					return
				}
				if k == len(waits) {
					submit()
					return
				}
				cfg.World().After(waits[k]*time.Millisecond, func() { watch(k + 1) })
			}
			watch(0)
		}
		cfg.World().After(0, submit)
	}

	for range 20 {
		if cfg.RandInt(1000) < 200 {
			cfg.Disconnect(cfg.RandInt(servers))
		}
		if cfg.RandInt(1000) < 500 {
			i := cfg.RandInt(servers)
			if cfg.Node(i) == nil {
				cfg.Start1(i)
			}
			cfg.Connect(i)
		}
		if cfg.RandInt(1000) < 200 {
			if i := cfg.RandInt(servers); cfg.Node(i) != nil {
				cfg.Crash1(i)
			}
		}
		// Less than the election timeout on average, but not by much,
		// so that there is time for agreement between failures.
		cfg.Sleep(ElectionTimeout * 7 / 10)
	}

	cfg.Sleep(ElectionTimeout)
	cfg.SetUnreliable(false)
	for i := range servers {
		if cfg.Node(i) == nil {
			cfg.Start1(i)
		}
		cfg.Connect(i)
	}
	stop = true
	cfg.Sleep(ElectionTimeout)

	lastIndex := cfg.One(cfg.RandCmd(), servers, true)
	var really []int
	for index := 1; index <= lastIndex; index++ {
		v, ok := cfg.Wait(index, servers, -1).(int)
		if !ok {
			t.Fatalf("not an int")
		}
		really = append(really, v)
	}
	for _, vs := range values {
		for _, v := range vs {
			if !slices.Contains(really, v) {
				t.Fatalf("didn't find a value")
			}
		}
	}
	if len(values[0])+len(values[1])+len(values[2]) == 0 {
		t.Fatalf("the clients saw nothing committed")
	}
	return cfg
}

// figure8Pause lets a random time pass, as the Figure 8 tests do between
// rounds: usually under 13 ms, one time in ten up to half an election
// timeout.
func figure8Pause(cfg *Harness) {
	if cfg.RandInt(1000) < 100 {
		cfg.Sleep(time.Duration(cfg.RandInt(int(ElectionTimeout/time.Millisecond)/2)) * time.Millisecond)
	} else {
		cfg.Sleep(time.Duration(cfg.RandInt(13)) * time.Millisecond)
	}
}
