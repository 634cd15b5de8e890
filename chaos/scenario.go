package chaos

import (
	"fmt"
	"math/rand/v2"

	"github.com/replab/replab/chaos/fault"
)

// The named scenarios of the Raft-KV-with-ChaosMonkey paper. Each returns a
// fault for a cluster of n hosts; apply it with Monkey.Apply. Each panics,
// naming itself and the value, on a bad argument: too few hosts, a leader
// not among them, a nil rng.

// IsolateLeader cuts the leader off from everyone. The leader must not be
// negative (Monkey.Apply checks it against the hosts).
func IsolateLeader(leader int) fault.Fault {
	if leader < 0 {
		panic(fmt.Sprintf("chaos: IsolateLeader: leader %d is negative", leader))
	}
	return fault.Fault{Kind: fault.Isolate, Host: leader}
}

// SplitMajority partitions n hosts into a majority and a minority, with the
// leader in the minority, so that the majority must elect a new leader.
// Which other hosts join the leader is drawn from rng. n must be at least 3.
func SplitMajority(n, leader int, rng *rand.Rand) fault.Fault {
	if n < 3 {
		panic(fmt.Sprintf("chaos: SplitMajority: %d hosts cannot split into a majority and a minority", n))
	}
	if leader < 0 || leader >= n {
		panic(fmt.Sprintf("chaos: SplitMajority: leader %d is not in 0..%d", leader, n-1))
	}
	needRand("SplitMajority", rng)
	others := shuffledExcept(n, leader, rng)
	minority := append([]int{leader}, others[:n-majority(n)-1]...)
	return fault.Fault{Kind: fault.Partition, Groups: [][]int{others[n-majority(n)-1:], minority}}
}

// SplitAllMinority partitions n hosts into groups that are all smaller than
// a majority (for 5 hosts: 2, 2 and 1), so that no group can elect a leader.
// Who goes where is drawn from rng. n must be at least 2.
func SplitAllMinority(n int, rng *rand.Rand) fault.Fault {
	if n < 2 {
		panic(fmt.Sprintf("chaos: SplitAllMinority: %d hosts cannot split into minorities", n))
	}
	needRand("SplitAllMinority", rng)
	hosts := rng.Perm(n)
	size := majority(n) - 1
	var groups [][]int
	for len(hosts) > 0 {
		k := min(size, len(hosts))
		groups = append(groups, hosts[:k])
		hosts = hosts[k:]
	}
	return fault.Fault{Kind: fault.Partition, Groups: groups}
}

// IsolateAll cuts every host off from every other (the paper's Fig. 8
// setup). n must be at least 1.
func IsolateAll(n int) fault.Fault {
	if n < 1 {
		panic(fmt.Sprintf("chaos: IsolateAll: %d hosts", n))
	}
	groups := make([][]int, n)
	for i := range groups {
		groups[i] = []int{i}
	}
	return fault.Fault{Kind: fault.Partition, Groups: groups}
}

func majority(n int) int { return n/2 + 1 }

// needRand panics, naming fn, if rng is nil.
func needRand(fn string, rng *rand.Rand) {
	if rng == nil {
		panic(fmt.Sprintf("chaos: %s: a nil rng (pass the world's, World.Rand)", fn))
	}
}

// shuffledExcept returns 0..n-1 without skip, in an order drawn from rng.
func shuffledExcept(n, skip int, rng *rand.Rand) []int {
	var hs []int
	for _, h := range rng.Perm(n) {
		if h != skip {
			hs = append(hs, h)
		}
	}
	return hs
}
