package kvraft_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/simtest"
)

// The lab's 4A tests: no snapshots.

func TestBasic(t *testing.T) { runScenario(t, generic(1, 5, false, false, false, -1, false)) }

func TestSpeed(t *testing.T) {
	runScenario(t, func(t simtest.T, seed int64, opts kvraft.Options) *config { return speedTest(t, seed, opts, -1) })
}

func TestConcurrent(t *testing.T) { runScenario(t, generic(5, 5, false, false, false, -1, false)) }

func TestUnreliable(t *testing.T) { runScenario(t, generic(5, 5, true, false, false, -1, false)) }

func TestUnreliableOneKey(t *testing.T) { runScenario(t, unreliableOneKey) }

// unreliableOneKey has five clients append to one key at once over an
// unreliable network; each client's appends must all be there, in order.
// Unlike the lab's version, each client reads the key after each append
// (and must see its own appends): without reads, porcupine would have to
// guess the order of every set of concurrent appends before the final Get
// could tell it whether it guessed right, and its search blows up.
func unreliableOneKey(t simtest.T, seed int64, opts kvraft.Options) *config {
	const nclient, upto = 5, 10
	cfg := makeConfig(t, seed, 5, true, -1, opts)
	ck := cfg.makeClient(cfg.All())
	ck.put("k", "")
	done := 0
	for me := range nclient {
		myck := cfg.makeClient(cfg.All())
		n := 0
		var next func()
		next = func() {
			if n == upto {
				done++
				return
			}
			nv := "x " + strconv.Itoa(me) + " " + strconv.Itoa(n) + " y"
			n++
			myck.Append("k", nv, func() {
				myck.getAsync("k", func(v string) {
					checkClntAppends(t, me, v, n)
					next()
				})
			})
		}
		next()
	}
	if !cfg.w.RunUntil(func() bool { return done == nclient }, opLimit) {
		t.Fatalf("the clients did not finish")
	}
	counts := make([]int, nclient)
	for i := range counts {
		counts[i] = upto
	}
	checkConcurrentAppends(t, ck.get("k"), counts)
	cfg.checkLinearizable()
	return cfg
}

func TestOnePartition(t *testing.T) { runScenario(t, onePartition) }

// onePartition checks that a majority makes progress, that a minority
// does not, and that the minority's operations complete after healing.
func onePartition(t simtest.T, seed int64, opts kvraft.Options) *config {
	cfg := makeConfig(t, seed, 5, false, -1, opts)
	ck := cfg.makeClient(cfg.All())
	ck.put("1", "13")

	// Progress in the majority.
	p1, p2 := cfg.makePartition()
	cfg.Partition(p1, p2)
	ckp1 := cfg.makeClient(p1)
	ckp2a := cfg.makeClient(p2)
	ckp2b := cfg.makeClient(p2)
	ckp1.put("1", "14")
	ckp1.check("1", "14")

	// No progress in the minority.
	done0, done1 := false, false
	ckp2a.Put("1", "15", func() { done0 = true })
	ckp2b.getAsync("1", func(string) { done1 = true })
	cfg.sleep(time.Second)
	if done0 {
		t.Fatalf("Put in minority completed")
	}
	if done1 {
		t.Fatalf("Get in minority completed")
	}
	ckp1.check("1", "14")
	ckp1.put("1", "16")
	ckp1.check("1", "16")

	// Completion after heal.
	cfg.ConnectAll()
	ckp2a.connect(cfg.All())
	ckp2b.connect(cfg.All())
	cfg.sleep(electionTimeout)
	if !cfg.w.RunUntil(func() bool { return done0 }, 3*time.Second) {
		t.Fatalf("Put did not complete")
	}
	if !cfg.w.RunUntil(func() bool { return done1 }, 3*time.Second) {
		t.Fatalf("Get did not complete")
	}
	ck.check("1", "15")
	cfg.checkLinearizable()
	return cfg
}

func TestManyPartitionsOneClient(t *testing.T) {
	runScenario(t, generic(1, 5, false, false, true, -1, false))
}

func TestManyPartitionsManyClients(t *testing.T) {
	runScenario(t, generic(5, 5, false, false, true, -1, false))
}

func TestPersistOneClient(t *testing.T) { runScenario(t, generic(1, 5, false, true, false, -1, false)) }

func TestPersistConcurrent(t *testing.T) {
	runScenario(t, generic(5, 5, false, true, false, -1, false))
}

func TestPersistConcurrentUnreliable(t *testing.T) {
	runScenario(t, generic(5, 5, true, true, false, -1, false))
}

func TestPersistPartition(t *testing.T) { runScenario(t, generic(5, 5, false, true, true, -1, false)) }

func TestPersistPartitionUnreliable(t *testing.T) {
	runScenario(t, generic(5, 5, true, true, true, -1, false))
}

func TestPersistPartitionUnreliableLinearizable(t *testing.T) {
	runScenario(t, generic(15, 7, true, true, true, -1, true))
}

// The lab's 4B tests: snapshots.

func TestSnapshotRPC(t *testing.T) { runScenario(t, snapshotRPC) }

// snapshotRPC makes a lagging server catch up by InstallSnapshot.
func snapshotRPC(t simtest.T, seed int64, opts kvraft.Options) *config {
	const maxraftstate = 1000
	cfg := makeConfig(t, seed, 3, false, maxraftstate, opts)
	ck := cfg.makeClient(cfg.All())
	ck.put("a", "A")
	ck.check("a", "A")

	// A bunch of puts into the majority partition.
	cfg.Partition([]int{0, 1}, []int{2})
	ck1 := cfg.makeClient([]int{0, 1})
	for i := range 50 {
		ck1.put(strconv.Itoa(i), strconv.Itoa(i))
	}
	cfg.sleep(electionTimeout)
	ck1.put("b", "B")

	// The majority has thrown away most of its log.
	if sz := cfg.LogSize(); sz > 8*maxraftstate {
		t.Fatalf("logs were not trimmed (%v > 8*%v)", sz, maxraftstate)
	}

	// A group that needs the lagging server, which must catch up by
	// InstallSnapshot.
	cfg.Partition([]int{0, 2}, []int{1})
	ck2 := cfg.makeClient([]int{0, 2})
	ck2.put("c", "C")
	ck2.put("d", "D")
	ck2.check("a", "A")
	ck2.check("b", "B")
	ck2.check("1", "1")
	ck2.check("49", "49")

	// Now everybody.
	cfg.ConnectAll()
	ck.put("e", "E")
	ck.check("c", "C")
	ck.check("e", "E")
	ck.check("1", "1")
	cfg.checkLinearizable()
	return cfg
}

func TestSnapshotSize(t *testing.T) { runScenario(t, snapshotSize) }

// snapshotSize checks that the Raft state and the snapshot stay small
// under a workload whose live state is one key.
func snapshotSize(t simtest.T, seed int64, opts kvraft.Options) *config {
	const maxraftstate, maxsnapshotstate = 1000, 500
	cfg := makeConfig(t, seed, 3, false, maxraftstate, opts)
	ck := cfg.makeClient(cfg.All())
	for range 200 {
		ck.put("x", "0")
		ck.check("x", "0")
		ck.put("x", "1")
		ck.check("x", "1")
	}
	if sz := cfg.LogSize(); sz > 8*maxraftstate {
		t.Fatalf("logs were not trimmed (%v > 8*%v)", sz, maxraftstate)
	}
	if ssz := cfg.SnapshotSize(); ssz > maxsnapshotstate {
		t.Fatalf("snapshot too large (%v > %v)", ssz, maxsnapshotstate)
	}
	cfg.checkLinearizable()
	return cfg
}

func TestSpeedSnapshot(t *testing.T) {
	runScenario(t, func(t simtest.T, seed int64, opts kvraft.Options) *config { return speedTest(t, seed, opts, 1000) })
}

func TestSnapshotRecover(t *testing.T) {
	runScenario(t, generic(1, 5, false, true, false, 1000, false))
}

func TestSnapshotRecoverManyClients(t *testing.T) {
	runScenario(t, generic(20, 5, false, true, false, 1000, false))
}

func TestSnapshotUnreliable(t *testing.T) {
	runScenario(t, generic(5, 5, true, false, false, 1000, false))
}

func TestSnapshotUnreliableRecover(t *testing.T) {
	runScenario(t, generic(5, 5, true, true, false, 1000, false))
}

func TestSnapshotUnreliableRecoverConcurrentPartition(t *testing.T) {
	runScenario(t, generic(5, 5, true, true, true, 1000, false))
}

func TestSnapshotUnreliableRecoverConcurrentPartitionLinearizable(t *testing.T) {
	runScenario(t, generic(15, 7, true, true, true, 1000, true))
}
