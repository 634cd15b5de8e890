package shardtxn

import (
	"fmt"
	"time"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// checkHost returns an error if call (StartShard, MakeClerk, ...) cannot
// run on host: a nil host, or a dead one, whose timers and calls would
// never fire.
func checkHost(call string, host *sim.Host) error {
	switch {
	case host == nil:
		return fmt.Errorf("shardtxn: %s: a nil host", call)
	case !host.Alive():
		return fmt.Errorf("shardtxn: %s: host %s is dead", call, host.Name())
	}
	return nil
}

// checkServer returns an error naming what a server cannot start with: a
// nil or dead host, a nil persister, or a nil end to a peer.
func checkServer(call string, host *sim.Host, peers []*labrpc.ClientEnd, persister *sim.Persister) error {
	if err := checkHost(call, host); err != nil {
		return err
	}
	if persister == nil {
		return fmt.Errorf("shardtxn: %s: a nil persister", call)
	}
	return checkEnds(call, peers, "its own group")
}

// checkEnds returns an error if ends, to the replicas of group ("shard
// group 2"), is empty or holds a nil end.
func checkEnds(call string, ends []*labrpc.ClientEnd, group string) error {
	if len(ends) == 0 {
		return fmt.Errorf("shardtxn: %s: no end to %s", call, group)
	}
	for i, e := range ends {
		if e == nil {
			return fmt.Errorf("shardtxn: %s: the end to replica %d of %s is nil", call, i, group)
		}
	}
	return nil
}

// checkSetting returns an error if d, the setting called name, is not
// positive or is longer than MaxSetting.
func checkSetting(name string, d time.Duration) error {
	switch {
	case d <= 0:
		return fmt.Errorf("%s %v must be positive", name, d)
	case d > MaxSetting:
		return fmt.Errorf("%s %v is longer than a day (MaxSetting)", name, d)
	}
	return nil
}
