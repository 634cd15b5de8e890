package sweep

import (
	"fmt"
	"time"

	"github.com/replab/replab/frangipani/frangipanitest"
)

// lockScenarios are frangipani's scenarios: 5 clerks on 2 keys, one
// reader's, and the swarm.
func lockScenarios() []Scenario {
	cfg := frangipanitest.Config()
	base := frangipanitest.Spec{Config: cfg, Clients: 5, Keys: 2, Unreliable: true}
	isolate, kills, drift := base, base, base
	const shape = "Frangipani lease/lock cache (3 lock servers, 5 caching clerks on 2 keys, unreliable network, snapshots): "
	isolate.Name, isolate.Isolate = "locks-isolate", true
	kills.Name, kills.KillLeaders = "locks-kills", true
	drift.Name, drift.Isolate, drift.Drift = "locks-drift", true, cfg.Drift
	// A reader that reads the key twice in a row takes its lock shared
	// (a key another client used last is read through the lock service's
	// log); the pauses leave it the key between writes, and cut off then,
	// it serves the key from its cache for as long as its lease lasts
	// while the writer's next write waits for the lock service to let the
	// lease go. A LAN makes that write quick.
	readers := frangipanitest.Spec{Name: "locks-readers", Config: cfg, Clients: 1, Readers: 3, Keys: 1, Think: 200 * time.Millisecond, For: 30 * time.Second, Isolate: true, Drift: cfg.Drift}
	// Duplicated requests on keys that move from clerk to clerk: the lock
	// service performs the operation of an acquire whose key another
	// clerk used last, so a duplicate that arrives after the answer must
	// be recognised, a read's as a write's, or it is granted a lock its
	// clerk never learns of. Clerks cut off and leaders killed add retries
	// and new leaders to the duplicates.
	// The report's linearizable test ran 15 clients on random keys, with
	// restarts and partitions, for three rounds of about 5 s and more.
	soak := base
	soak.Name, soak.Clients, soak.Keys, soak.For, soak.Isolate, soak.KillLeaders = "soak-locks", 15, 10, 30*time.Second, true, true
	duplicates := base
	duplicates.Name, duplicates.Duplicate, duplicates.Isolate, duplicates.KillLeaders = "locks-duplicates", 0.1, true, true
	end := fmt.Sprintf("; porcupine at the end, and a fresh clerk must read within %v (a lease, two elections, two RPC timeouts and a renewal).", frangipanitest.Progress(cfg))
	return []Scenario{
		lockScenario(isolate, shape+"a random clerk cut off from the lock service for up to two leases, again and again"+end),
		lockScenario(kills, shape+"the lock service's leader killed every 1–3 s and restarted within a second"+end),
		lockScenario(drift, shape+fmt.Sprintf("clerks cut off from the lock service again and again, their clocks %.0f%% slow and the lock servers' %.0f%% fast (the drift bound)", 100*cfg.Drift, 100*cfg.Drift)+end),
		lockScenario(readers, fmt.Sprintf("Frangipani lease/lock cache (3 lock servers, on a LAN, one caching clerk that reads and writes and three that only read, all on one key, pausing up to 200 ms between operations, snapshots) for 30 s: a random clerk cut off from the lock service for up to two leases, again and again, the clerks' clocks %.0f%% slow and the lock servers' %.0f%% fast (the drift bound)", 100*cfg.Drift, 100*cfg.Drift)+end),
		lockScenario(duplicates, "Frangipani lease/lock cache (3 lock servers, 5 caching clerks taking turns on 2 keys, unreliable network, snapshots) with a tenth of all requests delivered twice, "+
			"so that an acquire whose operation the lock service performs (its key was another clerk's last) arrives again after it was answered; "+
			"meanwhile a random clerk is cut off from the lock service for up to two leases, again and again, and the lock service's leader is killed every 1–3 s and restarted within a second"+end),
		lockScenario(soak, fmt.Sprintf("The Frangipani report's linearizable test at its length: frangipani's lease/lock cache (3 lock servers, snapshots) under %d caching clerks on %d random keys for %v, on an unreliable network, a random clerk cut off from the lock service for up to two leases again and again and the lock service's leader killed every 1–3 s and restarted within a second", soak.Clients, soak.Keys, soak.For)+end),
		lockSwarm(),
	}
}

// lockScenario returns sp as a scenario.
func lockScenario(sp frangipanitest.Spec, description string) Scenario {
	sc := onTestbed(sp.Name, description, sp.Build)
	sc.plant = planter(sp, func(sp frangipanitest.Spec) Scenario { return lockScenario(sp, description) },
		func(p *frangipanitest.Spec, b Bug) bool { return b.plantFrangipani(&p.Config) })
	return sc
}
