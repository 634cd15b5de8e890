package sweep

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/shardtxn"
	"github.com/replab/replab/shardtxn/txntest"
)

// The shape of soak-txn-kills: paper 000's Fig. 5 (a host running a
// coordinator and shard replicas killed under load, and back), once for
// each of the three hosts.
const (
	soakKillAt    = 10 * time.Second // when the first host dies
	soakKillFor   = 10 * time.Second // how long each host stays dead
	soakKillEvery = 30 * time.Second // from one kill to the next
	soakHosts     = 3
)

// soakTxnKills is paper 000's Fig. 5 at length: its deployment (two
// shards and the coordinators, three replicas each, on three shared
// hosts), bank transfers on a LAN, and each host in turn killed for 10 s,
// with progress checked after each restart.
func soakTxnKills() Scenario {
	length := soakKillAt + (soakHosts-1)*soakKillEvery + soakKillFor + txntest.Progress
	return swarmScenario("soak-txn-kills",
		fmt.Sprintf("Paper 000's Fig. 5 at length, three times over: two shard groups and the coordinators, three replicas each, on three shared hosts (each a coordinator and a replica of every shard, as the paper's containers), %d clients' bank transfers and reads of every balance on a LAN for %v, host 0 killed at %v and restarted %v later, host 1 %v after it, host 2 %v after that; after each restart a transaction begun must commit within %v; then every lock must be released and every read add up to the total.",
			txntest.Clients, length, soakKillAt, soakKillFor, soakKillEvery, soakKillEvery, txntest.Progress),
		func(b Bug) bool { return b.plantShardTxn(&shardtxn.Config{}) },
		func(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
			cfg := txntest.Config()
			if bug != nil {
				bug.plantShardTxn(&cfg)
			}
			dep := txntest.Deployment{Shards: 2, Replicas: soakHosts, Shared: true, Config: cfg}
			r, err := dep.Run("soak-txn-kills", seed, txntest.Load(true, txntest.Clients))
			if err != nil {
				return testbed.Run{}, err
			}
			var n testbed.Nemesis
			for h := range soakHosts {
				kill := soakKillAt + time.Duration(h)*soakKillEvery
				n.Schedule = append(n.Schedule,
					chaos.Step{At: kill, Fault: fault.Fault{Kind: fault.Kill, Host: h}},
					chaos.Step{At: kill + soakKillFor, Fault: fault.Fault{Kind: fault.Restart, Host: h}})
				n.Heals = append(n.Heals, kill+soakKillFor)
			}
			r.Nemesis, r.Length, r.Dir, r.Trace = n, length, dir, trace
			return r, nil
		})
}

// The shape of soak-acid-crashes: paper 003's crash runs one after
// another, each fault struck soakCrashFor after the last heal and healed
// soakCrashFor later.
const soakCrashFor = 10 * time.Second

// acidCrash is one of soak-acid-crashes' faults: what it kills, by the
// cluster's state when it strikes.
type acidCrash struct {
	name  string
	hosts func(c *cluster.Cluster) []int
}

// acidCrashes are paper 003's crash runs (its Figs. 5, 6, 8 and 9): a
// shard follower, one shard's leader, every shard's leader, a transaction
// manager that does not lead, and the one that does.
func acidCrashes() []acidCrash {
	leader := func(g int) func(c *cluster.Cluster) []int {
		return func(c *cluster.Cluster) []int {
			if l, ok := c.Leader(g); ok {
				return []int{c.HostOf(g, l)}
			}
			return nil
		}
	}
	follower := func(g int) func(c *cluster.Cluster) []int {
		return func(c *cluster.Cluster) []int {
			l, _ := c.Leader(g)
			return []int{c.HostOf(g, (l+1)%c.Replicas(g))}
		}
	}
	return []acidCrash{
		{"a shard follower", follower(1)},
		{"a shard leader", leader(1)},
		{"every shard leader", func(c *cluster.Cluster) []int {
			var hosts []int
			for g := 1; g < c.Groups(); g++ {
				hosts = append(hosts, leader(g)(c)...)
			}
			return hosts
		}},
		{"a transaction manager that does not lead", follower(0)},
		{"the leading transaction manager", leader(0)},
	}
}

// soakAcidCrashes is paper 003's crash runs at length, on its design and
// deployment: each crash in turn, under load, with progress checked after
// each restart.
func soakAcidCrashes() Scenario {
	// The paper ran one client's transactions one after another; two
	// clients contend a little, on paper 003's write intents. Bank
	// transfers, as soak-txn-kills's: lists grown over minutes cost
	// quadratic time to copy and check.
	const shards, clients = 5, 2
	crashes := acidCrashes()
	var names []string
	for _, c := range crashes {
		names = append(names, c.name)
	}
	length := time.Duration(2*len(crashes))*soakCrashFor + txntest.Progress
	acid := txntest.Variants()[len(txntest.Variants())-1]
	return swarmScenario("soak-acid-crashes",
		fmt.Sprintf("Paper 003's crash runs at length, one after another: its design (%s) with leaders found through the replica manager, %d shard groups and the transaction managers, three replicas each on hosts of their own; %d clients' bank transfers and reads of every balance for %v, in which %s are killed in turn, each %v after the last restart and restarted %v later; after each restart a transaction begun must commit within %v; then every intent must be released and every read add up to the total.",
			acid.Short, shards, clients, length, strings.Join(names, ", then "), soakCrashFor, soakCrashFor, txntest.Progress),
		func(b Bug) bool { return b.plantShardTxn(&shardtxn.Config{}) },
		func(bug *Bug, seed int64, dir string, trace io.Writer) (testbed.Run, error) {
			cfg := acid.With(txntest.Config())
			cfg.Discovery = shardtxn.ReplicaManager
			if bug != nil {
				bug.plantShardTxn(&cfg)
			}
			dep := txntest.Deployment{Shards: shards, Replicas: 3, Config: cfg}
			r, err := dep.Run("soak-acid-crashes", seed, txntest.Load(true, clients))
			if err != nil {
				return testbed.Run{}, err
			}
			var n testbed.Nemesis
			for i := range crashes {
				n.Heals = append(n.Heals, time.Duration(2*i+2)*soakCrashFor)
			}
			n.Reactive = func(e *testbed.Env) (func(), error) {
				for i, crash := range crashes {
					e.World.After(time.Duration(2*i+1)*soakCrashFor, func() {
						hosts := crash.hosts(e.Cluster)
						for _, h := range hosts {
							must(e.Cluster.Apply(fault.Fault{Kind: fault.Kill, Host: h}))
						}
						e.World.After(soakCrashFor, func() {
							for _, h := range hosts {
								must(e.Cluster.Apply(fault.Fault{Kind: fault.Restart, Host: h}))
							}
						})
					})
				}
				return func() {}, nil
			}
			r.Nemesis, r.Length, r.Dir, r.Trace = n, length, dir, trace
			return r, nil
		})
}
