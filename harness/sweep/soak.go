package sweep

import (
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
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
