package rafttest

import (
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim/simtest"
)

func basicAgree(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): basic agreement")
	for index := 1; index <= 3; index++ {
		if nd, _ := cfg.NCommitted(index); nd > 0 {
			t.Fatalf("some have committed before Start()")
		}
		if xindex := cfg.One(index*100, servers, false); xindex != index {
			t.Fatalf("got index %d but expected %d", xindex, index)
		}
	}
	return cfg
}

// rpcBytes checks that each command is sent to each peer once.
func rpcBytes(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): RPC byte count")
	cfg.One(99, servers, false)
	bytes0 := cfg.Bytes()
	sent := 0
	for index := 2; index < 12; index++ {
		cmd := strings.Repeat(string(rune('a'+index)), 5000)
		if xindex := cfg.One(cmd, servers, false); xindex != index {
			t.Fatalf("got index %d but expected %d", xindex, index)
		}
		sent += len(cmd)
	}
	got := cfg.Bytes() - bytes0
	if expected := int64(servers * sent); got > expected+50000 {
		t.Fatalf("too many RPC bytes; got %d, expected %d", got, expected)
	}
	return cfg
}

func followerFailure(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): test progressive failure of followers")
	cfg.One(101, servers, false)

	// Disconnect one follower; the rest still agree.
	leader1 := cfg.CheckOneLeader()
	cfg.Disconnect((leader1 + 1) % servers)
	cfg.One(102, servers-1, false)
	cfg.Sleep(ElectionTimeout)
	cfg.One(103, servers-1, false)

	// Disconnect the remaining follower: nothing commits.
	leader2 := cfg.CheckOneLeader()
	cfg.Disconnect((leader2 + 1) % servers)
	cfg.Disconnect((leader2 + 2) % servers)
	index, _, ok := cfg.Node(leader2).Start(104)
	if !ok {
		t.Fatalf("leader rejected Start()")
	}
	if index != 4 {
		t.Fatalf("expected index 4, got %d", index)
	}
	cfg.Sleep(2 * ElectionTimeout)
	if n, _ := cfg.NCommitted(index); n > 0 {
		t.Fatalf("%d committed but no majority", n)
	}
	return cfg
}

func leaderFailure(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): test failure of leaders")
	cfg.One(101, servers, false)

	// Disconnect the first leader; the rest elect another and agree.
	leader1 := cfg.CheckOneLeader()
	cfg.Disconnect(leader1)
	cfg.One(102, servers-1, false)
	cfg.Sleep(ElectionTimeout)
	cfg.One(103, servers-1, false)

	// Disconnect the new leader too: nothing commits.
	leader2 := cfg.CheckOneLeader()
	cfg.Disconnect(leader2)
	for i := range servers {
		cfg.Node(i).Start(104)
	}
	cfg.Sleep(2 * ElectionTimeout)
	if n, _ := cfg.NCommitted(4); n > 0 {
		t.Fatalf("%d committed but no majority", n)
	}
	return cfg
}

// failAgree checks that a follower that rejoins after missing entries
// catches up.
func failAgree(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): agreement after follower reconnects")
	cfg.One(101, servers, false)

	leader := cfg.CheckOneLeader()
	cfg.Disconnect((leader + 1) % servers)
	cfg.One(102, servers-1, false)
	cfg.One(103, servers-1, false)
	cfg.Sleep(ElectionTimeout)
	cfg.One(104, servers-1, false)
	cfg.One(105, servers-1, false)

	cfg.Connect((leader + 1) % servers)
	// The full set of servers agrees, including the one that rejoined.
	cfg.One(106, servers, true)
	cfg.Sleep(ElectionTimeout)
	cfg.One(107, servers, true)
	return cfg
}

// failNoAgree checks that nothing commits without a majority.
func failNoAgree(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 5
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): no agreement if too many followers disconnect")
	cfg.One(10, servers, false)

	// Three of five followers disconnect.
	leader := cfg.CheckOneLeader()
	for k := 1; k <= 3; k++ {
		cfg.Disconnect((leader + k) % servers)
	}
	index, _, ok := cfg.Node(leader).Start(20)
	if !ok {
		t.Fatalf("leader rejected Start()")
	}
	if index != 2 {
		t.Fatalf("expected index 2, got %d", index)
	}
	cfg.Sleep(2 * ElectionTimeout)
	if n, _ := cfg.NCommitted(index); n > 0 {
		t.Fatalf("%d committed but no majority", n)
	}

	for k := 1; k <= 3; k++ {
		cfg.Connect((leader + k) % servers)
	}
	// The disconnected majority may have chosen a leader from among
	// their own ranks, forgetting index 2.
	leader2 := cfg.CheckOneLeader()
	index2, _, ok2 := cfg.Node(leader2).Start(30)
	if !ok2 {
		t.Fatalf("leader2 rejected Start()")
	}
	if index2 < 2 || index2 > 3 {
		t.Fatalf("unexpected index %d", index2)
	}
	cfg.One(1000, servers, true)
	return cfg
}

// concurrentStarts submits several commands at once and checks that all
// of them commit.
func concurrentStarts(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): concurrent Start()s")
	success := false
loop:
	for try := range 5 {
		if try > 0 {
			cfg.Sleep(3 * time.Second) // give the cluster a chance to settle
		}
		leader := cfg.CheckOneLeader()
		_, term, ok := cfg.Node(leader).Start(1)
		if !ok {
			continue
		}
		var indices []int
		for i := range 5 {
			index, term1, ok := cfg.Node(leader).Start(100 + i)
			if term1 != term || !ok {
				continue
			}
			indices = append(indices, index)
		}
		for j := range servers {
			if t1, _ := cfg.Node(j).GetState(); t1 != term {
				continue loop // the term moved on: try again
			}
		}
		var cmds []int
		for _, index := range indices {
			cmd := cfg.Wait(index, servers, term)
			ix, ok := cmd.(int)
			if !ok {
				t.Fatalf("value %v is not an int", cmd)
			}
			if ix == -1 {
				continue loop // the term changed: try again
			}
			cmds = append(cmds, ix)
		}
		for i := range 5 {
			if !slices.Contains(cmds, 100+i) {
				t.Fatalf("cmd %d missing in %v", 100+i, cmds)
			}
		}
		success = true
		break
	}
	if !success {
		t.Fatalf("term changed too often")
	}
	return cfg
}

// rejoin checks that a partitioned leader's uncommitted entries are
// replaced when it rejoins.
func rejoin(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): rejoin of partitioned leader")
	cfg.One(101, servers, true)

	// The leader's network fails, and it gets entries nobody else sees.
	leader1 := cfg.CheckOneLeader()
	cfg.Disconnect(leader1)
	cfg.Node(leader1).Start(102)
	cfg.Node(leader1).Start(103)
	cfg.Node(leader1).Start(104)

	// The new leader commits, also at index 2.
	cfg.One(103, 2, true)

	// The new leader's network fails; the old one comes back.
	leader2 := cfg.CheckOneLeader()
	cfg.Disconnect(leader2)
	cfg.Connect(leader1)
	cfg.One(104, 2, true)

	// All together now.
	cfg.Connect(leader2)
	cfg.One(105, servers, true)
	return cfg
}

// backup checks that a leader quickly backs up over a follower's long
// divergent log.
func backup(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 5
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): leader backs up quickly over incorrect follower logs")
	cfg.One(cfg.RandCmd(), servers, true)

	// Put the leader and one follower in a partition.
	leader1 := cfg.CheckOneLeader()
	for k := 2; k <= 4; k++ {
		cfg.Disconnect((leader1 + k) % servers)
	}
	// Submit lots of commands that won't commit.
	for range 50 {
		cfg.Node(leader1).Start(cfg.RandCmd())
	}
	cfg.Sleep(ElectionTimeout / 2)
	cfg.Disconnect(leader1)
	cfg.Disconnect((leader1 + 1) % servers)

	// Allow the other partition to recover.
	for k := 2; k <= 4; k++ {
		cfg.Connect((leader1 + k) % servers)
	}
	// Lots of successful commands to the new group.
	for range 50 {
		cfg.One(cfg.RandCmd(), 3, true)
	}

	// Now another partitioned leader and one follower.
	leader2 := cfg.CheckOneLeader()
	other := (leader1 + 2) % servers
	if leader2 == other {
		other = (leader2 + 1) % servers
	}
	cfg.Disconnect(other)
	// Lots more commands that won't commit.
	for range 50 {
		cfg.Node(leader2).Start(cfg.RandCmd())
	}
	cfg.Sleep(ElectionTimeout / 2)

	// Bring the original leader back to life.
	for i := range servers {
		cfg.Disconnect(i)
	}
	cfg.Connect(leader1)
	cfg.Connect((leader1 + 1) % servers)
	cfg.Connect(other)

	// Lots of successful commands to the new group.
	for range 50 {
		cfg.One(cfg.RandCmd(), 3, true)
	}

	// Now everyone.
	for i := range servers {
		cfg.Connect(i)
	}
	cfg.One(cfg.RandCmd(), servers, true)
	return cfg
}

// count checks that elections, agreement and idleness take few RPCs.
func count(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, false, mk)
	cfg.Begin("Test (3B): RPC counts aren't too high")
	rpcs := func() (n int) {
		for j := range servers {
			n += cfg.RPCCount(j)
		}
		return n
	}

	cfg.CheckOneLeader()
	total1 := rpcs()
	if total1 > 30 || total1 < 1 {
		t.Fatalf("too many or few RPCs (%d) to elect initial leader", total1)
	}

	var total2 int
	success := false
loop:
	for try := range 5 {
		if try > 0 {
			cfg.Sleep(3 * time.Second) // give the cluster a chance to settle
		}
		leader := cfg.CheckOneLeader()
		total1 = rpcs()

		iters := 10
		starti, term, ok := cfg.Node(leader).Start(1)
		if !ok {
			continue // leader moved on quickly
		}
		var cmds []int
		for i := 1; i < iters+2; i++ {
			x := cfg.RandCmd()
			cmds = append(cmds, x)
			index1, term1, ok := cfg.Node(leader).Start(x)
			if term1 != term || !ok {
				continue loop // the term changed, or we lost leadership
			}
			if starti+i != index1 {
				t.Fatalf("Start() failed")
			}
		}
		for i := 1; i < iters+1; i++ {
			cmd := cfg.Wait(starti+i, servers, term)
			if ix, ok := cmd.(int); !ok || ix != cmds[i-1] {
				if ix == -1 {
					continue loop // the term changed: try again
				}
				t.Fatalf("wrong value %v committed for index %d; expected %v", cmd, starti+i, cmds)
			}
		}
		total2 = 0
		for j := range servers {
			if t1, _ := cfg.Node(j).GetState(); t1 != term {
				continue loop // the term changed: the count means nothing
			}
			total2 += cfg.RPCCount(j)
		}
		if total2-total1 > (iters+1+3)*3 {
			t.Fatalf("too many RPCs (%d) for %d entries", total2-total1, iters)
		}
		success = true
		break
	}
	if !success {
		t.Fatalf("term changed too often")
	}

	cfg.Sleep(ElectionTimeout)
	total3 := rpcs()
	if total3-total2 > 3*20 {
		t.Fatalf("too many RPCs (%d) for 1 second of idleness", total3-total2)
	}
	return cfg
}
