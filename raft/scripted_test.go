package raft

// Scripted tests: the election timers are set so long that they never
// fire, and the test starts each election itself (a node's timeout is just
// a method to call), so that a known-bad interleaving happens on every
// run instead of by luck.

import (
	"testing"
	"time"

	"github.com/replab/replab/sim/simtest"
)

// scripted returns rc with elections only when the test asks for them,
// and without PreVote and CheckQuorum, whose extra protection the scripts
// step around to reach the core of Raft.
func scripted(rc Config) Config {
	rc.ElectionMin, rc.ElectionMax = time.Hour, time.Hour
	rc.PreVote, rc.CheckQuorum = false, false
	return rc
}

// elect makes server i campaign until it leads, trying a few terms.
func (cfg *config) elect(i int) {
	cfg.t.Helper()
	for range 3 {
		cfg.raft(i).campaign(false)
		cfg.raft(i).flush()
		cfg.Sleep(50 * time.Millisecond)
		if _, isLeader := cfg.raft(i).GetState(); isLeader {
			return
		}
	}
	cfg.t.Fatalf("server %d did not win an election", i)
}

func TestFigure8Scripted(t *testing.T) { runScenario(t, figure8Scripted) }

// figure8Scripted plays the Raft paper's Figure 8: a leader that
// replicates an entry of an earlier term to a majority must not commit it
// by counting replicas, because a server with a later-term entry at that
// index can still win an election and overwrite it.
func figure8Scripted(t simtest.T, seed int64, rc Config) *config {
	cfg := makeConfig(t, seed, 5, false, false, scripted(rc))
	cfg.Begin("Test (3C): Figure 8, scripted")
	// (a) S0 leads and gets x onto S1 only.
	cfg.elect(0)
	cfg.Only(0, 1)
	cfg.raft(0).Start("x")
	cfg.Sleep(50 * time.Millisecond)
	// (b) S4 leads a later term with S2 and S3, and takes y at the same
	// index, alone.
	cfg.Only(2, 3, 4)
	cfg.elect(4)
	cfg.Only()
	cfg.raft(4).Start("y")
	// (c) S0 leads again with S1 and S2 and copies x to S2: x is now on a
	// majority, but it is from an earlier term, so it must not commit.
	cfg.Only(0, 1, 2)
	cfg.elect(0)
	cfg.Sleep(100 * time.Millisecond)
	// (d) S0 is gone; S4 can win with S2 and S3 (its last term is later
	// than x's) and overwrite x with y everywhere it can.
	cfg.Only(2, 3, 4)
	cfg.elect(4)
	cfg.One("z", 3, false) // commits y before z; fails if x committed
	if n, cmd := cfg.NCommitted(1); cmd != "y" {
		t.Fatalf("index 1 holds %v on %d servers; want y", cmd, n)
	}
	return cfg
}

func TestVoteSurvivesCrash(t *testing.T) { runScenario(t, voteSurvivesCrash) }

// voteSurvivesCrash checks that a server that voted and then crashed
// remembers its vote: otherwise two leaders win one term.
func voteSurvivesCrash(t simtest.T, seed int64, rc Config) *config {
	cfg := makeConfig(t, seed, 3, false, false, scripted(rc))
	cfg.Begin("Test (3C): a vote survives a crash, scripted")
	// S0 wins term 1 with S2's vote.
	cfg.Only(0, 2)
	cfg.elect(0)
	term0, _ := cfg.raft(0).GetState()
	// S2 crashes and restarts; S1, still in an earlier term, asks it for
	// a vote in the same term.
	cfg.Only()
	cfg.Start1(2)
	cfg.Only(1, 2)
	cfg.raft(1).campaign(false)
	cfg.raft(1).flush()
	cfg.Sleep(50 * time.Millisecond)
	term1, lead1 := cfg.raft(1).GetState()
	if _, lead0 := cfg.raft(0).GetState(); lead0 && lead1 && term0 == term1 {
		t.Fatalf("term %d has 2 leaders: servers 0 and 1", term0)
	}
	return cfg
}
