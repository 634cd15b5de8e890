package rafttest

import (
	"github.com/replab/replab/raft/raftapi"
	"github.com/replab/replab/sim/simtest"
)

// snapCommon keeps pushing enough commands through a 3-server cluster to
// trigger snapshots while one server is cut off (disconnect) or killed
// (crash) and brought back, so that it must catch up by InstallSnapshot.
func snapCommon(t simtest.T, seed int64, mk raftapi.Make, name string, disconnect, reliable, crash bool) *Harness {
	const iters = 30
	servers := 3
	cfg := New(t, seed, servers, !reliable, true, mk)
	cfg.Begin(name)
	cfg.One(cfg.RandCmd(), servers, true)
	leader1 := cfg.CheckOneLeader()

	for i := range iters {
		victim := (leader1 + 1) % servers
		sender := leader1
		if i%3 == 1 {
			sender = (leader1 + 1) % servers
			victim = leader1
		}
		if disconnect {
			cfg.Disconnect(victim)
			cfg.One(cfg.RandCmd(), servers-1, true)
		}
		if crash {
			cfg.Crash1(victim)
			cfg.One(cfg.RandCmd(), servers-1, true)
		}

		// Perhaps send enough to get a snapshot.
		nn := SnapshotInterval/2 + cfg.RandInt(SnapshotInterval)
		for range nn {
			if rf := cfg.Node(sender); rf != nil {
				rf.Start(cfg.RandCmd())
			}
		}
		// Let the appliers catch up with the Start()s.
		if !disconnect && !crash {
			cfg.One(cfg.RandCmd(), servers, true)
		} else {
			cfg.One(cfg.RandCmd(), servers-1, true)
		}
		if size := cfg.LogSize(); size >= MaxLogSize {
			t.Fatalf("log size too large: %d bytes", size)
		}
		if disconnect {
			// Reconnect a follower, who may be behind and need a
			// snapshot to catch up.
			cfg.Connect(victim)
			cfg.One(cfg.RandCmd(), servers, true)
			leader1 = cfg.CheckOneLeader()
		}
		if crash {
			cfg.Start1(victim)
			cfg.Connect(victim)
			cfg.One(cfg.RandCmd(), servers, true)
			leader1 = cfg.CheckOneLeader()
		}
	}
	return cfg
}

func snapshotBasic(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	return snapCommon(t, seed, mk, "Test (3D): snapshots basic", false, true, false)
}

func snapshotInstall(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	return snapCommon(t, seed, mk, "Test (3D): install snapshots (disconnect)", true, true, false)
}

func snapshotInstallUnreliable(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	return snapCommon(t, seed, mk, "Test (3D): install snapshots (disconnect+unreliable)", true, false, false)
}

func snapshotInstallCrash(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	return snapCommon(t, seed, mk, "Test (3D): install snapshots (crash)", false, true, true)
}

func snapshotInstallUnCrash(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	return snapCommon(t, seed, mk, "Test (3D): install snapshots (unreliable+crash)", false, false, true)
}

// snapshotAllCrash crashes and restarts every server after snapshots, and
// checks that no committed index goes backwards.
func snapshotAllCrash(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, true, mk)
	cfg.Begin("Test (3D): crash and restart all servers")
	cfg.One(cfg.RandCmd(), servers, true)
	for range 5 {
		// Perhaps enough to get a snapshot.
		nn := SnapshotInterval/2 + cfg.RandInt(SnapshotInterval)
		for range nn {
			cfg.One(cfg.RandCmd(), servers, true)
		}
		index1 := cfg.One(cfg.RandCmd(), servers, true)

		// Crash all, then revive all.
		for i := range servers {
			cfg.Crash1(i)
		}
		for i := range servers {
			cfg.Start1(i)
			cfg.Connect(i)
		}
		if index2 := cfg.One(cfg.RandCmd(), servers, true); index2 < index1+1 {
			t.Fatalf("index decreased from %d to %d", index1, index2)
		}
	}
	return cfg
}

// snapshotInit checks that a server restarted from a snapshot starts with
// its commit index at the snapshot, applying nothing twice.
func snapshotInit(t simtest.T, seed int64, mk raftapi.Make) *Harness {
	servers := 3
	cfg := New(t, seed, servers, false, true, mk)
	cfg.Begin("Test (3D): snapshot initialization after crash")
	cfg.One(cfg.RandCmd(), servers, true)

	// Enough ops to make a snapshot.
	for range SnapshotInterval + 1 {
		cfg.One(cfg.RandCmd(), servers, true)
	}
	for range 2 {
		for i := range servers {
			cfg.Crash1(i)
		}
		for i := range servers {
			cfg.Start1(i)
			cfg.Connect(i)
		}
		// A single op, to see whether a server applies a command that
		// its snapshot already covers.
		cfg.One(cfg.RandCmd(), servers, true)
	}
	return cfg
}
