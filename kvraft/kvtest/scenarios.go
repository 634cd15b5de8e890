package kvtest

import (
	"strconv"
	"time"

	"github.com/replab/replab/sim/simtest"
)

// The lab's 4A tests: no snapshots.

// unreliableOneKey has five clients append to one key at once over an
// unreliable network; each client's appends must all be there, in order.
// Unlike the lab's version, each client reads the key after each append
// (and must see its own appends): without reads, porcupine would have to
// guess the order of every set of concurrent appends before the final Get
// could tell it whether it guessed right, and its search blows up.
func unreliableOneKey(t simtest.T, seed int64, svc Service) *Harness {
	const nclient, upto = 5, 10
	cfg := New(t, seed, 5, true, -1, svc)
	ck := cfg.MakeClient(cfg.All())
	ck.Put("k", "")
	done := 0
	for me := range nclient {
		myck := cfg.MakeClient(cfg.All())
		n := 0
		var next func()
		next = func() {
			if n == upto {
				done++
				return
			}
			nv := "x " + strconv.Itoa(me) + " " + strconv.Itoa(n) + " y"
			n++
			myck.AppendAsync("k", nv, func() {
				myck.GetAsync("k", func(v string) {
					checkClntAppends(t, me, v, n)
					next()
				})
			})
		}
		next()
	}
	if !cfg.World().RunUntil(func() bool { return done == nclient }, OpLimit) {
		t.Fatalf("the clients did not finish")
	}
	counts := make([]int, nclient)
	for i := range counts {
		counts[i] = upto
	}
	checkConcurrentAppends(t, ck.Get("k"), counts)
	cfg.CheckLinearizable()
	return cfg
}

// onePartition checks that a majority makes progress, that a minority
// does not, and that the minority's operations complete after healing.
func onePartition(t simtest.T, seed int64, svc Service) *Harness {
	cfg := New(t, seed, 5, false, -1, svc)
	ck := cfg.MakeClient(cfg.All())
	ck.Put("1", "13")

	// Progress in the majority.
	p1, p2 := cfg.MakePartition()
	cfg.Partition(p1, p2)
	ckp1 := cfg.MakeClient(p1)
	ckp2a := cfg.MakeClient(p2)
	ckp2b := cfg.MakeClient(p2)
	ckp1.Put("1", "14")
	ckp1.Check("1", "14")

	// No progress in the minority.
	done0, done1 := false, false
	ckp2a.PutAsync("1", "15", func() { done0 = true })
	ckp2b.GetAsync("1", func(string) { done1 = true })
	cfg.Sleep(time.Second)
	if done0 {
		t.Fatalf("Put in minority completed")
	}
	if done1 {
		t.Fatalf("Get in minority completed")
	}
	ckp1.Check("1", "14")
	ckp1.Put("1", "16")
	ckp1.Check("1", "16")

	// Completion after heal.
	cfg.ConnectAll()
	ckp2a.Connect(cfg.All())
	ckp2b.Connect(cfg.All())
	cfg.Sleep(ElectionTimeout)
	if !cfg.World().RunUntil(func() bool { return done0 }, 3*time.Second) {
		t.Fatalf("Put did not complete")
	}
	if !cfg.World().RunUntil(func() bool { return done1 }, 3*time.Second) {
		t.Fatalf("Get did not complete")
	}
	ck.Check("1", "15")
	cfg.CheckLinearizable()
	return cfg
}

// The lab's 4B tests: snapshots.

// snapshotRPC makes a lagging server catch up by InstallSnapshot.
func snapshotRPC(t simtest.T, seed int64, svc Service) *Harness {
	const maxraftstate = 1000
	cfg := New(t, seed, 3, false, maxraftstate, svc)
	ck := cfg.MakeClient(cfg.All())
	ck.Put("a", "A")
	ck.Check("a", "A")

	// A bunch of puts into the majority partition.
	cfg.Partition([]int{0, 1}, []int{2})
	ck1 := cfg.MakeClient([]int{0, 1})
	for i := range 50 {
		ck1.Put(strconv.Itoa(i), strconv.Itoa(i))
	}
	cfg.Sleep(ElectionTimeout)
	ck1.Put("b", "B")

	// The majority has thrown away most of its log.
	if sz := cfg.LogSize(); sz > 8*maxraftstate {
		t.Fatalf("logs were not trimmed (%v > 8*%v)", sz, maxraftstate)
	}

	// A group that needs the lagging server, which must catch up by
	// InstallSnapshot.
	cfg.Partition([]int{0, 2}, []int{1})
	ck2 := cfg.MakeClient([]int{0, 2})
	ck2.Put("c", "C")
	ck2.Put("d", "D")
	ck2.Check("a", "A")
	ck2.Check("b", "B")
	ck2.Check("1", "1")
	ck2.Check("49", "49")

	// Now everybody.
	cfg.ConnectAll()
	ck.Put("e", "E")
	ck.Check("c", "C")
	ck.Check("e", "E")
	ck.Check("1", "1")
	cfg.CheckLinearizable()
	return cfg
}

// snapshotSize checks that the Raft state and the snapshot stay small
// under a workload whose live state is one key.
func snapshotSize(t simtest.T, seed int64, svc Service) *Harness {
	const maxraftstate, maxsnapshotstate = 1000, 500
	cfg := New(t, seed, 3, false, maxraftstate, svc)
	ck := cfg.MakeClient(cfg.All())
	for range 200 {
		ck.Put("x", "0")
		ck.Check("x", "0")
		ck.Put("x", "1")
		ck.Check("x", "1")
	}
	if sz := cfg.LogSize(); sz > 8*maxraftstate {
		t.Fatalf("logs were not trimmed (%v > 8*%v)", sz, maxraftstate)
	}
	if ssz := cfg.SnapshotSize(); ssz > maxsnapshotstate {
		t.Fatalf("snapshot too large (%v > %v)", ssz, maxsnapshotstate)
	}
	cfg.CheckLinearizable()
	return cfg
}
