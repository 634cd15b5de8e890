package raft

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/simtest"
)

func TestBasicAgree(t *testing.T) { runScenario(t, basicAgree) }

func basicAgree(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): basic agreement")
	for index := 1; index <= 3; index++ {
		if nd, _ := cfg.nCommitted(index); nd > 0 {
			t.Fatalf("some have committed before Start()")
		}
		if xindex := cfg.one(index*100, servers, false); xindex != index {
			t.Fatalf("got index %d but expected %d", xindex, index)
		}
	}
	return cfg
}

func TestRPCBytes(t *testing.T) { runScenario(t, rpcBytes) }

// rpcBytes checks that each command is sent to each peer once.
func rpcBytes(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): RPC byte count")
	cfg.one(99, servers, false)
	bytes0 := cfg.net.GetTotalBytes()
	sent := 0
	for index := 2; index < 12; index++ {
		cmd := strings.Repeat(string(rune('a'+index)), 5000)
		if xindex := cfg.one(cmd, servers, false); xindex != index {
			t.Fatalf("got index %d but expected %d", xindex, index)
		}
		sent += len(cmd)
	}
	got := cfg.net.GetTotalBytes() - bytes0
	if expected := int64(servers * sent); got > expected+50000 {
		t.Fatalf("too many RPC bytes; got %d, expected %d", got, expected)
	}
	return cfg
}

func TestFollowerFailure(t *testing.T) { runScenario(t, followerFailure) }

func followerFailure(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): test progressive failure of followers")
	cfg.one(101, servers, false)

	// Disconnect one follower; the rest still agree.
	leader1 := cfg.checkOneLeader()
	cfg.disconnect((leader1 + 1) % servers)
	cfg.one(102, servers-1, false)
	cfg.sleep(RaftElectionTimeout)
	cfg.one(103, servers-1, false)

	// Disconnect the remaining follower: nothing commits.
	leader2 := cfg.checkOneLeader()
	cfg.disconnect((leader2 + 1) % servers)
	cfg.disconnect((leader2 + 2) % servers)
	index, _, ok := cfg.rafts[leader2].Start(104)
	if !ok {
		t.Fatalf("leader rejected Start()")
	}
	if index != 4 {
		t.Fatalf("expected index 4, got %d", index)
	}
	cfg.sleep(2 * RaftElectionTimeout)
	if n, _ := cfg.nCommitted(index); n > 0 {
		t.Fatalf("%d committed but no majority", n)
	}
	return cfg
}

func TestLeaderFailure(t *testing.T) { runScenario(t, leaderFailure) }

func leaderFailure(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): test failure of leaders")
	cfg.one(101, servers, false)

	// Disconnect the first leader; the rest elect another and agree.
	leader1 := cfg.checkOneLeader()
	cfg.disconnect(leader1)
	cfg.one(102, servers-1, false)
	cfg.sleep(RaftElectionTimeout)
	cfg.one(103, servers-1, false)

	// Disconnect the new leader too: nothing commits.
	leader2 := cfg.checkOneLeader()
	cfg.disconnect(leader2)
	for i := range servers {
		cfg.rafts[i].Start(104)
	}
	cfg.sleep(2 * RaftElectionTimeout)
	if n, _ := cfg.nCommitted(4); n > 0 {
		t.Fatalf("%d committed but no majority", n)
	}
	return cfg
}

func TestFailAgree(t *testing.T) { runScenario(t, failAgree) }

// failAgree checks that a follower that rejoins after missing entries
// catches up.
func failAgree(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): agreement after follower reconnects")
	cfg.one(101, servers, false)

	leader := cfg.checkOneLeader()
	cfg.disconnect((leader + 1) % servers)
	cfg.one(102, servers-1, false)
	cfg.one(103, servers-1, false)
	cfg.sleep(RaftElectionTimeout)
	cfg.one(104, servers-1, false)
	cfg.one(105, servers-1, false)

	cfg.connect((leader + 1) % servers)
	// The full set of servers agrees, including the one that rejoined.
	cfg.one(106, servers, true)
	cfg.sleep(RaftElectionTimeout)
	cfg.one(107, servers, true)
	return cfg
}

func TestFailNoAgree(t *testing.T) { runScenario(t, failNoAgree) }

// failNoAgree checks that nothing commits without a majority.
func failNoAgree(t simtest.T, seed int64, rc Config) *config {
	servers := 5
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): no agreement if too many followers disconnect")
	cfg.one(10, servers, false)

	// Three of five followers disconnect.
	leader := cfg.checkOneLeader()
	for k := 1; k <= 3; k++ {
		cfg.disconnect((leader + k) % servers)
	}
	index, _, ok := cfg.rafts[leader].Start(20)
	if !ok {
		t.Fatalf("leader rejected Start()")
	}
	if index != 2 {
		t.Fatalf("expected index 2, got %d", index)
	}
	cfg.sleep(2 * RaftElectionTimeout)
	if n, _ := cfg.nCommitted(index); n > 0 {
		t.Fatalf("%d committed but no majority", n)
	}

	for k := 1; k <= 3; k++ {
		cfg.connect((leader + k) % servers)
	}
	// The disconnected majority may have chosen a leader from among
	// their own ranks, forgetting index 2.
	leader2 := cfg.checkOneLeader()
	index2, _, ok2 := cfg.rafts[leader2].Start(30)
	if !ok2 {
		t.Fatalf("leader2 rejected Start()")
	}
	if index2 < 2 || index2 > 3 {
		t.Fatalf("unexpected index %d", index2)
	}
	cfg.one(1000, servers, true)
	return cfg
}

func TestConcurrentStarts(t *testing.T) { runScenario(t, concurrentStarts) }

// concurrentStarts submits several commands at once and checks that all
// of them commit.
func concurrentStarts(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): concurrent Start()s")
	success := false
loop:
	for try := range 5 {
		if try > 0 {
			cfg.sleep(3 * time.Second) // give the cluster a chance to settle
		}
		leader := cfg.checkOneLeader()
		_, term, ok := cfg.rafts[leader].Start(1)
		if !ok {
			continue
		}
		var indices []int
		for i := range 5 {
			index, term1, ok := cfg.rafts[leader].Start(100 + i)
			if term1 != term || !ok {
				continue
			}
			indices = append(indices, index)
		}
		for j := range servers {
			if t1, _ := cfg.rafts[j].GetState(); t1 != term {
				continue loop // the term moved on: try again
			}
		}
		var cmds []int
		for _, index := range indices {
			cmd := cfg.wait(index, servers, term)
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

func TestRejoin(t *testing.T) { runScenario(t, rejoin) }

// rejoin checks that a partitioned leader's uncommitted entries are
// replaced when it rejoins.
func rejoin(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): rejoin of partitioned leader")
	cfg.one(101, servers, true)

	// The leader's network fails, and it gets entries nobody else sees.
	leader1 := cfg.checkOneLeader()
	cfg.disconnect(leader1)
	cfg.rafts[leader1].Start(102)
	cfg.rafts[leader1].Start(103)
	cfg.rafts[leader1].Start(104)

	// The new leader commits, also at index 2.
	cfg.one(103, 2, true)

	// The new leader's network fails; the old one comes back.
	leader2 := cfg.checkOneLeader()
	cfg.disconnect(leader2)
	cfg.connect(leader1)
	cfg.one(104, 2, true)

	// All together now.
	cfg.connect(leader2)
	cfg.one(105, servers, true)
	return cfg
}

func TestBackup(t *testing.T) { runScenario(t, backup) }

// backup checks that a leader quickly backs up over a follower's long
// divergent log.
func backup(t simtest.T, seed int64, rc Config) *config {
	servers := 5
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): leader backs up quickly over incorrect follower logs")
	cfg.one(cfg.randCmd(), servers, true)

	// Put the leader and one follower in a partition.
	leader1 := cfg.checkOneLeader()
	for k := 2; k <= 4; k++ {
		cfg.disconnect((leader1 + k) % servers)
	}
	// Submit lots of commands that won't commit.
	for range 50 {
		cfg.rafts[leader1].Start(cfg.randCmd())
	}
	cfg.sleep(RaftElectionTimeout / 2)
	cfg.disconnect(leader1)
	cfg.disconnect((leader1 + 1) % servers)

	// Allow the other partition to recover.
	for k := 2; k <= 4; k++ {
		cfg.connect((leader1 + k) % servers)
	}
	// Lots of successful commands to the new group.
	for range 50 {
		cfg.one(cfg.randCmd(), 3, true)
	}

	// Now another partitioned leader and one follower.
	leader2 := cfg.checkOneLeader()
	other := (leader1 + 2) % servers
	if leader2 == other {
		other = (leader2 + 1) % servers
	}
	cfg.disconnect(other)
	// Lots more commands that won't commit.
	for range 50 {
		cfg.rafts[leader2].Start(cfg.randCmd())
	}
	cfg.sleep(RaftElectionTimeout / 2)

	// Bring the original leader back to life.
	for i := range servers {
		cfg.disconnect(i)
	}
	cfg.connect(leader1)
	cfg.connect((leader1 + 1) % servers)
	cfg.connect(other)

	// Lots of successful commands to the new group.
	for range 50 {
		cfg.one(cfg.randCmd(), 3, true)
	}

	// Now everyone.
	for i := range servers {
		cfg.connect(i)
	}
	cfg.one(cfg.randCmd(), servers, true)
	return cfg
}

func TestCount(t *testing.T) { runScenario(t, count) }

// count checks that elections, agreement and idleness take few RPCs.
func count(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3B): RPC counts aren't too high")
	rpcs := func() (n int) {
		for j := range servers {
			n += cfg.net.GetCount(j)
		}
		return n
	}

	cfg.checkOneLeader()
	total1 := rpcs()
	if total1 > 30 || total1 < 1 {
		t.Fatalf("too many or few RPCs (%d) to elect initial leader", total1)
	}

	var total2 int
	success := false
loop:
	for try := range 5 {
		if try > 0 {
			cfg.sleep(3 * time.Second) // give the cluster a chance to settle
		}
		leader := cfg.checkOneLeader()
		total1 = rpcs()

		iters := 10
		starti, term, ok := cfg.rafts[leader].Start(1)
		if !ok {
			continue // leader moved on quickly
		}
		var cmds []int
		for i := 1; i < iters+2; i++ {
			x := cfg.randCmd()
			cmds = append(cmds, x)
			index1, term1, ok := cfg.rafts[leader].Start(x)
			if term1 != term || !ok {
				continue loop // the term changed, or we lost leadership
			}
			if starti+i != index1 {
				t.Fatalf("Start() failed")
			}
		}
		for i := 1; i < iters+1; i++ {
			cmd := cfg.wait(starti+i, servers, term)
			if ix, ok := cmd.(int); !ok || ix != cmds[i-1] {
				if ix == -1 {
					continue loop // the term changed: try again
				}
				t.Fatalf("wrong value %v committed for index %d; expected %v", cmd, starti+i, cmds)
			}
		}
		total2 = 0
		for j := range servers {
			if t1, _ := cfg.rafts[j].GetState(); t1 != term {
				continue loop // the term changed: the count means nothing
			}
			total2 += cfg.net.GetCount(j)
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

	cfg.sleep(RaftElectionTimeout)
	total3 := rpcs()
	if total3-total2 > 3*20 {
		t.Fatalf("too many RPCs (%d) for 1 second of idleness", total3-total2)
	}
	return cfg
}
