package raft

import (
	"slices"
	"testing"
	"time"

	"github.com/replab/replab/simtest"
)

func TestPersist1(t *testing.T) { runScenario(t, persist1) }

func persist1(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3C): basic persistence")
	cfg.one(11, servers, true)

	// Crash and restart all.
	for i := range servers {
		cfg.start1(i)
	}
	for i := range servers {
		cfg.disconnect(i)
		cfg.connect(i)
	}
	cfg.one(12, servers, true)

	leader1 := cfg.checkOneLeader()
	cfg.disconnect(leader1)
	cfg.start1(leader1)
	cfg.connect(leader1)
	cfg.one(13, servers, true)

	leader2 := cfg.checkOneLeader()
	cfg.disconnect(leader2)
	cfg.one(14, servers-1, true)
	cfg.start1(leader2)
	cfg.connect(leader2)
	cfg.wait(4, servers, -1) // wait for leader2 to join before killing i3

	i3 := (cfg.checkOneLeader() + 1) % servers
	cfg.disconnect(i3)
	cfg.one(15, servers-1, true)
	cfg.start1(i3)
	cfg.connect(i3)
	cfg.one(16, servers, true)
	return cfg
}

func TestPersist2(t *testing.T) { runScenario(t, persist2) }

func persist2(t simtest.T, seed int64, rc Config) *config {
	servers := 5
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3C): more persistence")
	index := 1
	for range 5 {
		cfg.one(10+index, servers, true)
		index++
		leader1 := cfg.checkOneLeader()
		cfg.disconnect((leader1 + 1) % servers)
		cfg.disconnect((leader1 + 2) % servers)
		cfg.one(10+index, servers-2, true)
		index++

		cfg.disconnect((leader1 + 0) % servers)
		cfg.disconnect((leader1 + 3) % servers)
		cfg.disconnect((leader1 + 4) % servers)

		cfg.start1((leader1 + 1) % servers)
		cfg.start1((leader1 + 2) % servers)
		cfg.connect((leader1 + 1) % servers)
		cfg.connect((leader1 + 2) % servers)
		cfg.sleep(RaftElectionTimeout)

		cfg.start1((leader1 + 3) % servers)
		cfg.connect((leader1 + 3) % servers)
		cfg.one(10+index, servers-2, true)
		index++

		cfg.connect((leader1 + 4) % servers)
		cfg.connect((leader1 + 0) % servers)
	}
	cfg.one(1000, servers, true)
	return cfg
}

func TestPersist3(t *testing.T) { runScenario(t, persist3) }

// persist3 checks partitioned leader and one follower crash, leader
// restarts.
func persist3(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3C): partitioned leader and one follower crash, leader restarts")
	cfg.one(101, 3, true)

	leader := cfg.checkOneLeader()
	cfg.disconnect((leader + 2) % servers)
	cfg.one(102, 2, true)

	cfg.crash1((leader + 0) % servers)
	cfg.crash1((leader + 1) % servers)
	cfg.connect((leader + 2) % servers)
	cfg.start1((leader + 0) % servers)
	cfg.connect((leader + 0) % servers)
	cfg.one(103, 2, true)

	cfg.start1((leader + 1) % servers)
	cfg.connect((leader + 1) % servers)
	cfg.one(104, servers, true)
	return cfg
}

func TestFigure8(t *testing.T) { runScenario(t, figure8) }

// figure8 crashes leaders at random moments, with and without a quorum,
// so that entries of old terms sit uncommitted on some servers (the
// situation of the Raft paper's Figure 8).
func figure8(t simtest.T, seed int64, rc Config) *config {
	servers := 5
	cfg := makeConfig(t, seed, servers, false, false, rc)
	cfg.begin("Test (3C): Figure 8")
	cfg.one(cfg.randCmd(), 1, true)

	nup := servers
	for range 1000 {
		leader := -1
		for i := range servers {
			if cfg.rafts[i] != nil {
				if _, _, ok := cfg.rafts[i].Start(cfg.randCmd()); ok {
					leader = i
				}
			}
		}
		cfg.figure8Pause()
		if leader != -1 {
			cfg.crash1(leader)
			nup--
		}
		if nup < 3 {
			if s := cfg.randInt(servers); cfg.rafts[s] == nil {
				cfg.start1(s)
				cfg.connect(s)
				nup++
			}
		}
	}
	for i := range servers {
		if cfg.rafts[i] == nil {
			cfg.start1(i)
			cfg.connect(i)
		}
	}
	cfg.one(cfg.randCmd(), servers, true)
	return cfg
}

func TestUnreliableAgree(t *testing.T) { runScenario(t, unreliableAgree) }

func unreliableAgree(t simtest.T, seed int64, rc Config) *config {
	servers := 5
	cfg := makeConfig(t, seed, servers, true, false, rc)
	cfg.begin("Test (3C): unreliable agreement")
	var clients []*asyncOne
	for iters := 1; iters < 50; iters++ {
		for j := range 4 {
			clients = append(clients, cfg.oneAsync(100*iters+j, 1))
		}
		cfg.one(iters, 1, true)
	}
	cfg.setunreliable(false)
	cfg.waitAsync(clients)
	cfg.one(100, servers, true)
	return cfg
}

func TestFigure8Unreliable(t *testing.T) { runScenario(t, figure8Unreliable) }

func figure8Unreliable(t simtest.T, seed int64, rc Config) *config {
	servers := 5
	cfg := makeConfig(t, seed, servers, true, false, rc)
	cfg.begin("Test (3C): Figure 8 (unreliable)")
	cfg.one(cfg.randInt(10000), 1, true)

	nup := servers
	for iters := range 1000 {
		if iters == 200 {
			cfg.setlongreordering(true)
		}
		leader := -1
		for i := range servers {
			if _, _, ok := cfg.rafts[i].Start(cfg.randInt(10000)); ok && cfg.connected[i] {
				leader = i
			}
		}
		cfg.figure8Pause()
		if leader != -1 && cfg.randInt(1000) < int(RaftElectionTimeout/time.Millisecond)/2 {
			cfg.disconnect(leader)
			nup--
		}
		if nup < 3 {
			if s := cfg.randInt(servers); !cfg.connected[s] {
				cfg.connect(s)
				nup++
			}
		}
	}
	for i := range servers {
		if !cfg.connected[i] {
			cfg.connect(i)
		}
	}
	cfg.one(cfg.randInt(10000), servers, true)
	return cfg
}

func TestReliableChurn(t *testing.T) { runScenario(t, reliableChurn) }

func reliableChurn(t simtest.T, seed int64, rc Config) *config {
	return churn(t, seed, rc, false)
}

func TestUnreliableChurn(t *testing.T) { runScenario(t, unreliableChurn) }

func unreliableChurn(t simtest.T, seed int64, rc Config) *config {
	return churn(t, seed, rc, true)
}

// churn runs three clients that keep submitting commands to random servers
// while servers disconnect, crash and restart at random; every command a
// client saw committed must be in the final log.
func churn(t simtest.T, seed int64, rc Config, unreliable bool) *config {
	servers := 5
	cfg := makeConfig(t, seed, servers, unreliable, false, rc)
	if unreliable {
		cfg.begin("Test (3C): unreliable churn")
	} else {
		cfg.begin("Test (3C): churn")
	}

	stop := false
	values := make([][]int, 3)
	for me := range 3 {
		var submit func()
		submit = func() {
			if stop {
				return
			}
			x := cfg.randCmd()
			index := -1
			for i := range servers {
				if rf := cfg.rafts[i]; rf != nil {
					if index1, _, ok := rf.Start(x); ok {
						index = index1
					}
				}
			}
			if index == -1 {
				cfg.w.After(time.Duration(79+me*17)*time.Millisecond, submit)
				return
			}
			// Watch for the command at 10, 30, 80, 180 and 380 ms.
			waits := []time.Duration{10, 20, 50, 100, 200}
			var watch func(k int)
			watch = func(k int) {
				if nd, cmd := cfg.nCommitted(index); nd > 0 {
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
				cfg.w.After(waits[k]*time.Millisecond, func() { watch(k + 1) })
			}
			watch(0)
		}
		cfg.w.After(0, submit)
	}

	for range 20 {
		if cfg.randInt(1000) < 200 {
			cfg.disconnect(cfg.randInt(servers))
		}
		if cfg.randInt(1000) < 500 {
			i := cfg.randInt(servers)
			if cfg.rafts[i] == nil {
				cfg.start1(i)
			}
			cfg.connect(i)
		}
		if cfg.randInt(1000) < 200 {
			if i := cfg.randInt(servers); cfg.rafts[i] != nil {
				cfg.crash1(i)
			}
		}
		// Less than the election timeout on average, but not by much,
		// so that there is time for agreement between failures.
		cfg.sleep(RaftElectionTimeout * 7 / 10)
	}

	cfg.sleep(RaftElectionTimeout)
	cfg.setunreliable(false)
	for i := range servers {
		if cfg.rafts[i] == nil {
			cfg.start1(i)
		}
		cfg.connect(i)
	}
	stop = true
	cfg.sleep(RaftElectionTimeout)

	lastIndex := cfg.one(cfg.randCmd(), servers, true)
	var really []int
	for index := 1; index <= lastIndex; index++ {
		v, ok := cfg.wait(index, servers, -1).(int)
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
func (cfg *config) figure8Pause() {
	if cfg.randInt(1000) < 100 {
		cfg.sleep(time.Duration(cfg.randInt(int(RaftElectionTimeout/time.Millisecond)/2)) * time.Millisecond)
	} else {
		cfg.sleep(time.Duration(cfg.randInt(13)) * time.Millisecond)
	}
}
