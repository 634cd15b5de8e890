package raft

import (
	"testing"

	"github.com/replab/replab/simtest"
)

// MAXLOGSIZE bounds the persisted Raft state while snapshots are taken.
const MAXLOGSIZE = 2000

// snapCommon keeps pushing enough commands through a 3-server cluster to
// trigger snapshots while one server is cut off (disconnect) or killed
// (crash) and brought back, so that it must catch up by InstallSnapshot.
func snapCommon(t simtest.T, seed int64, rc Config, name string, disconnect, reliable, crash bool) *config {
	const iters = 30
	servers := 3
	cfg := makeConfig(t, seed, servers, !reliable, true, rc)
	cfg.begin(name)
	cfg.one(cfg.randCmd(), servers, true)
	leader1 := cfg.checkOneLeader()

	for i := range iters {
		victim := (leader1 + 1) % servers
		sender := leader1
		if i%3 == 1 {
			sender = (leader1 + 1) % servers
			victim = leader1
		}
		if disconnect {
			cfg.disconnect(victim)
			cfg.one(cfg.randCmd(), servers-1, true)
		}
		if crash {
			cfg.crash1(victim)
			cfg.one(cfg.randCmd(), servers-1, true)
		}

		// Perhaps send enough to get a snapshot.
		nn := SnapShotInterval/2 + cfg.randInt(SnapShotInterval)
		for range nn {
			if rf := cfg.rafts[sender]; rf != nil {
				rf.Start(cfg.randCmd())
			}
		}
		// Let the appliers catch up with the Start()s.
		if !disconnect && !crash {
			cfg.one(cfg.randCmd(), servers, true)
		} else {
			cfg.one(cfg.randCmd(), servers-1, true)
		}
		if size := cfg.LogSize(); size >= MAXLOGSIZE {
			t.Fatalf("log size too large: %d bytes", size)
		}
		if disconnect {
			// Reconnect a follower, who may be behind and need a
			// snapshot to catch up.
			cfg.connect(victim)
			cfg.one(cfg.randCmd(), servers, true)
			leader1 = cfg.checkOneLeader()
		}
		if crash {
			cfg.start1(victim)
			cfg.connect(victim)
			cfg.one(cfg.randCmd(), servers, true)
			leader1 = cfg.checkOneLeader()
		}
	}
	return cfg
}

func TestSnapshotBasic(t *testing.T) { runScenario(t, snapshotBasic) }

func snapshotBasic(t simtest.T, seed int64, rc Config) *config {
	return snapCommon(t, seed, rc, "Test (3D): snapshots basic", false, true, false)
}

func TestSnapshotInstall(t *testing.T) { runScenario(t, snapshotInstall) }

func snapshotInstall(t simtest.T, seed int64, rc Config) *config {
	return snapCommon(t, seed, rc, "Test (3D): install snapshots (disconnect)", true, true, false)
}

func TestSnapshotInstallUnreliable(t *testing.T) { runScenario(t, snapshotInstallUnreliable) }

func snapshotInstallUnreliable(t simtest.T, seed int64, rc Config) *config {
	return snapCommon(t, seed, rc, "Test (3D): install snapshots (disconnect+unreliable)", true, false, false)
}

func TestSnapshotInstallCrash(t *testing.T) { runScenario(t, snapshotInstallCrash) }

func snapshotInstallCrash(t simtest.T, seed int64, rc Config) *config {
	return snapCommon(t, seed, rc, "Test (3D): install snapshots (crash)", false, true, true)
}

func TestSnapshotInstallUnCrash(t *testing.T) { runScenario(t, snapshotInstallUnCrash) }

func snapshotInstallUnCrash(t simtest.T, seed int64, rc Config) *config {
	return snapCommon(t, seed, rc, "Test (3D): install snapshots (unreliable+crash)", false, false, true)
}

func TestSnapshotAllCrash(t *testing.T) { runScenario(t, snapshotAllCrash) }

// snapshotAllCrash crashes and restarts every server after snapshots, and
// checks that no committed index goes backwards.
func snapshotAllCrash(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, true, rc)
	cfg.begin("Test (3D): crash and restart all servers")
	cfg.one(cfg.randCmd(), servers, true)
	for range 5 {
		// Perhaps enough to get a snapshot.
		nn := SnapShotInterval/2 + cfg.randInt(SnapShotInterval)
		for range nn {
			cfg.one(cfg.randCmd(), servers, true)
		}
		index1 := cfg.one(cfg.randCmd(), servers, true)

		// Crash all, then revive all.
		for i := range servers {
			cfg.crash1(i)
		}
		for i := range servers {
			cfg.start1(i)
			cfg.connect(i)
		}
		if index2 := cfg.one(cfg.randCmd(), servers, true); index2 < index1+1 {
			t.Fatalf("index decreased from %d to %d", index1, index2)
		}
	}
	return cfg
}

func TestSnapshotInit(t *testing.T) { runScenario(t, snapshotInit) }

// snapshotInit checks that a server restarted from a snapshot starts with
// its commit index at the snapshot, applying nothing twice.
func snapshotInit(t simtest.T, seed int64, rc Config) *config {
	servers := 3
	cfg := makeConfig(t, seed, servers, false, true, rc)
	cfg.begin("Test (3D): snapshot initialization after crash")
	cfg.one(cfg.randCmd(), servers, true)

	// Enough ops to make a snapshot.
	for range SnapShotInterval + 1 {
		cfg.one(cfg.randCmd(), servers, true)
	}
	for range 2 {
		for i := range servers {
			cfg.crash1(i)
		}
		for i := range servers {
			cfg.start1(i)
			cfg.connect(i)
		}
		// A single op, to see whether a server applies a command that
		// its snapshot already covers.
		cfg.one(cfg.randCmd(), servers, true)
	}
	return cfg
}
